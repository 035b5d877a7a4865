// The spool's `device` file: the DEVICE_ID its readings were read under. Readings carry no device of their own (the
// socket's hello names it), so after a change of DEVICE_ID what is left unacknowledged goes out under the new name:
// said once, with both names.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../lib/logger.ts';

const DEVICE_FILE = 'device';

/** Records `deviceId` in `dir` (through a rename: a crash leaves the old name or the new), warning on a change. */
export function rememberDeviceId(dir: string, deviceId: string, unacknowledged: number, log: Logger): void {
  const file = join(dir, DEVICE_FILE);
  let was: string | undefined;
  try {
    was = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (was === deviceId) return;
  if (was !== undefined && unacknowledged > 0) {
    const s = unacknowledged === 1 ? '' : 's';
    log.warn(
      { was, now: deviceId, unacknowledged },
      `spool: ${unacknowledged} unacknowledged reading${s} read as device ${JSON.stringify(was)} ` +
        `will be sent as ${JSON.stringify(deviceId)} (DEVICE_ID changed)`,
    );
  }
  writeFileSync(`${file}.new`, deviceId);
  renameSync(`${file}.new`, file);
}
