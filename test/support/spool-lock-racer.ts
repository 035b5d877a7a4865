// A process that takes spool locks when told, for racing real processes on one directory: stdin lines
// `lock <dir> <epoch ms>` (spin until that instant, then lockSpool) and `release`; answers one stdout line each.
import { createInterface } from 'node:readline';
import { lockSpool, type SpoolLock } from '../../device/spool/spool-lock.ts';

const held: SpoolLock[] = [];

function answer(command: string): string {
  const [verb, dir, at] = command.split(' ');
  if (verb === 'release') {
    for (const lock of held.splice(0)) lock.release();
    return 'released';
  }
  if (verb !== 'lock' || !dir) return `error unknown command ${JSON.stringify(command)}`;
  // Spinning, not sleeping: every racer leaves the wait within microseconds of the others.
  while (Date.now() < Number(at));
  try {
    held.push(lockSpool(dir));
    return 'locked';
  } catch (error) {
    const { code } = error as { code?: string };
    return code === 'ESPOOLINUSE' ? 'refused' : `error ${(error as Error).message}`;
  }
}

createInterface({ input: process.stdin }).on('line', (line) => process.stdout.write(`${answer(line)}\n`));
process.stdout.write('ready\n');
