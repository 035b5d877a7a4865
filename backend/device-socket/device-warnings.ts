// The device hub's summed warnings, worded in one place: what its sockets and their writers ignore, close or drop,
// each a line per interval however many devices it happens to (lib/summed-warning.ts).
import { CLOSE_POLICY, CLOSE_TRY_AGAIN_LATER } from '../../lib/device-protocol.ts';
import type { Logger } from '../../lib/logger.ts';
import { createSummedWarning, type SummedWarning } from '../../lib/summed-warning.ts';

export interface DeviceWarnings {
  /** The sockets' own: a malformed message, no hello in time, a hello its token may not speak for. */
  socket: { malformed: SummedWarning; silent: SummedWarning; impostor: SummedWarning };
  /** The writers': refused readings, failed writes, readings dropped over the bound, refused declarations. */
  writer: { refused: SummedWarning; failed: SummedWarning; dropped: SummedWarning; lossRefused: SummedWarning };
  /** A write of the devices' presence failed. */
  presenceFailed: SummedWarning;
  /** Logs what each has counted and not reported yet (on shutdown). */
  flush(): void;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function createDeviceWarnings(log: Logger, helloTimeoutMs: number): DeviceWarnings {
  const warn = (message: (n: number) => string) => createSummedWarning(log, message);
  const sockets = (n: number) => plural(n, 'device socket');
  const socket = {
    malformed: warn((n) => `ignored ${plural(n, 'malformed device message')}`),
    silent: warn((n) => `closed ${sockets(n)} that sent no hello within ${helloTimeoutMs / 1000} s (${CLOSE_POLICY})`),
    impostor: warn(
      (n) => `closed ${sockets(n)} whose hello named a device its token may not speak for (${CLOSE_POLICY})`,
    ),
  };
  const writer = {
    refused: warn((n) => `refused ${plural(n, 'reading')} the backend cannot store as given (acknowledged as refused)`),
    failed: warn((n) => `${plural(n, 'write')} of readings failed; holding them unacknowledged and retrying`),
    lossRefused: warn(
      (n) => `refused ${plural(n, 'lost-range declaration')} past the ranges kept per session (left unacknowledged)`,
    ),
    dropped: warn(
      (n) =>
        `dropped the readings held for ${sockets(n)} over the bound and closed ` +
        `${n === 1 ? 'it' : 'them'} with ${CLOSE_TRY_AGAIN_LATER} (the devices resend them)`,
    ),
  };
  const presenceFailed = warn(
    (n) => `${plural(n, 'write')} of device presence failed (the device list may show stale connection states)`,
  );
  const all = [...Object.values(socket), ...Object.values(writer), presenceFailed];
  return { socket, writer, presenceFailed, flush: () => all.forEach((warning) => warning.flush()) };
}
