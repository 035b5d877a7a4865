// Reads GET /api/readings' query string into a ReadingsQuery, or one line saying what is wrong with it (a 400).
import { DEVICE_ID_MAX_LENGTH, DEVICE_ID_RULE, isDeviceId } from '../../lib/device-protocol.ts';
import { parseIsoTime } from './iso-time.ts';

export interface ReadingsQuery {
  deviceId: string;
  limit: number;
  /** Received before this time, or (within the device's newest session) below this sequence number. */
  before?: { time: Date } | { seq: number };
}

const READINGS_LIMIT_DEFAULT = 100;
const READINGS_LIMIT_MAX = 1000;
const PARAMETERS = ['deviceId', 'limit', 'before'];

/** `params` as URLSearchParams gives them; a parameter given twice, or one we do not know, is an error too. */
export function parseReadingsQuery(params: URLSearchParams): ReadingsQuery | { error: string } {
  for (const name of new Set(params.keys())) {
    if (!PARAMETERS.includes(name)) {
      return { error: `unknown parameter ${quote(name)}: expected ${PARAMETERS.join(', ')}` };
    }
    if (params.getAll(name).length > 1) return { error: `${name} is given more than once` };
  }
  const deviceId = params.get('deviceId');
  if (!deviceId) return { error: 'deviceId is required, e.g. /api/readings?deviceId=dev-1' };
  if (deviceId.length > DEVICE_ID_MAX_LENGTH) {
    return { error: `deviceId is longer than ${DEVICE_ID_MAX_LENGTH} characters (${deviceId.length})` };
  }
  // The hello's rule: an id no device can have is a mistake to name, not an unknown device to answer [] for.
  if (!isDeviceId(deviceId)) return { error: `deviceId must be ${DEVICE_ID_RULE}, got ${quote(deviceId)}` };
  const limitText = params.get('limit');
  const limit = limitText === null ? READINGS_LIMIT_DEFAULT : /^\d{1,7}$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= READINGS_LIMIT_MAX)) {
    return { error: `limit must be a whole number from 1 to ${READINGS_LIMIT_MAX}, got ${quote(limitText!)}` };
  }
  const beforeText = params.get('before');
  if (beforeText === null) return { deviceId, limit };
  if (/^\d{1,16}$/.test(beforeText) && Number.isSafeInteger(Number(beforeText)) && Number(beforeText) >= 1) {
    return { deviceId, limit, before: { seq: Number(beforeText) } };
  }
  const time = parseIsoTime(beforeText);
  if (time) return { deviceId, limit, before: { time } };
  return {
    error:
      `before must be a sequence number (1 or more) or an ISO 8601 time such as 2026-01-01T00:00:00Z, ` +
      `got ${quote(beforeText)}`,
  };
}

/** The value quoted for an error line: JSON-escaped (no line breaks), and cut short when long. */
function quote(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}
