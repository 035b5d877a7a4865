// The messages on the device socket (device service → backend at DEVICE_SOCKET_PATH), shared by both ends.
//
// The device sends `hello` once per connection, then `reading`s in sequence order. The backend answers
// each reading with `ack` carrying the highest sequence number it has stored; the device drops everything
// up to that number from its queue and resends the rest after a reconnect. The backend ignores a reading
// whose `seq` it has already stored for that device session, so a resend never duplicates a reading.

export const DEVICE_SOCKET_PATH = '/api/device/socket';

/** The largest frame the backend accepts; a larger one closes the socket with 1009. */
export const DEVICE_MAX_PAYLOAD = 64 * 1024;

/** Messages (and pings) a socket may send: beyond this token bucket the backend closes it with 1008. */
export const DEVICE_MESSAGE_RATE = { perSecond: 50, burst: 200 };

/** What the device service allows itself: under the backend's limit with room for its pings and network jitter. */
export const DEVICE_SEND_PACE = { perSecond: 45, burst: 150 };

export interface HelloMessage {
  type: 'hello';
  deviceId: string;
  /** Changes each time the device service starts; sequence numbers restart at 1 per session. */
  session: string;
}

export interface ReadingMessage {
  type: 'reading';
  deviceId: string;
  session: string;
  seq: number;
  /** ISO 8601 UTC time the line was read from the serial port. */
  timestamp: string;
  /** The line as read, without its line ending. */
  value: string;
}

export interface AckMessage {
  type: 'ack';
  seq: number;
}

export type DeviceMessage = HelloMessage | ReadingMessage;

/** Parses a device message; returns undefined for anything that is not one (the caller logs and ignores it). */
export function parseDeviceMessage(data: string): DeviceMessage | undefined {
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null) return undefined;
  const m = message as Record<string, unknown>;
  if (m.type === 'hello' && typeof m.deviceId === 'string' && typeof m.session === 'string') {
    return { type: 'hello', deviceId: m.deviceId, session: m.session };
  }
  if (
    m.type === 'reading' &&
    typeof m.deviceId === 'string' &&
    typeof m.session === 'string' &&
    Number.isSafeInteger(m.seq) &&
    typeof m.timestamp === 'string' &&
    typeof m.value === 'string'
  ) {
    return {
      type: 'reading',
      deviceId: m.deviceId,
      session: m.session,
      seq: m.seq as number,
      timestamp: m.timestamp,
      value: m.value,
    };
  }
  return undefined;
}

export function parseAck(data: string): AckMessage | undefined {
  try {
    const m = JSON.parse(data) as Record<string, unknown>;
    return m?.type === 'ack' && Number.isSafeInteger(m.seq) ? { type: 'ack', seq: m.seq as number } : undefined;
  } catch {
    return undefined;
  }
}
