// What one device message means for its socket, decided without I/O: a message that is no message, the hello that
// binds the socket, a first message that is not hello, a message naming a second device, or one more message of the
// bound device (what it changes in the registry, and what goes to the writer). The socket (device-socket.ts) acts.
import {
  checkDeviceMessage,
  readingsOf,
  type HelloMessage,
  type LossReason,
  type Reading,
  type SeqRange,
} from '../../lib/device-protocol.ts';

export type Dispatch =
  | { kind: 'malformed'; reason: string; sample: string }
  | { kind: 'hello'; message: HelloMessage }
  | { kind: 'hello-first'; type: string }
  | { kind: 'second-device'; claimed: string }
  | {
      kind: 'bound';
      /** For the registry: the session a hello names, the backlog the message reports. */
      session: string | undefined;
      backlog: number | undefined;
      /** For the writer, if anything. */
      readings?: { session: string; readings: Reading[] };
      lost?: { session: string; reason: LossReason; ranges: readonly SeqRange[] };
    };

/** Where a frame's text is quoted in a warning, it is cut to this. */
const SAMPLE_CHARS = 100;

/** What `data` means on a socket bound to `deviceId` (undefined: no hello yet). */
export function dispatch(data: unknown, deviceId: string | undefined): Dispatch {
  const checked = typeof data === 'string' ? checkDeviceMessage(data) : { reason: 'binary' };
  if ('reason' in checked) {
    const sample = typeof data === 'string' ? data.slice(0, SAMPLE_CHARS) : '<binary>';
    return { kind: 'malformed', reason: checked.reason, sample };
  }
  const { message } = checked;
  if (deviceId === undefined) {
    return message.type === 'hello' ? { kind: 'hello', message } : { kind: 'hello-first', type: message.type };
  }
  if (message.deviceId !== deviceId) return { kind: 'second-device', claimed: message.deviceId };
  const bound = {
    kind: 'bound' as const,
    session: message.type === 'hello' ? message.session : undefined,
    backlog: message.backlog,
  };
  if (message.type === 'hello') return bound;
  if (message.type === 'lost') {
    return { ...bound, lost: { session: message.session, reason: message.reason, ranges: message.ranges } };
  }
  return { ...bound, readings: { session: message.session, readings: readingsOf(message) } };
}
