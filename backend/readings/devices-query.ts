// Reads GET /api/devices' query string into a DevicesQuery (a page after a device id, or the devices needing
// attention first), or one line saying what is wrong with it (a 400).
import { DEVICE_ID_RULE, isDeviceId } from '../../lib/device-protocol.ts';

export type DevicesQuery = { limit: number; after?: string } | { attention: number };

const LIMIT_DEFAULT = 100;
const LIMIT_MAX = 1000;
const ATTENTION_MAX = 100;

export function parseDevicesQuery(params: URLSearchParams): DevicesQuery | { error: string } {
  for (const name of new Set(params.keys())) {
    if (!['limit', 'after', 'attention'].includes(name)) {
      return { error: `unknown parameter ${JSON.stringify(name.slice(0, 40))}: expected limit, after, attention` };
    }
    if (params.getAll(name).length > 1) return { error: `${name} is given more than once` };
  }
  const attention = params.get('attention');
  if (attention !== null) {
    if (params.has('limit') || params.has('after')) return { error: 'attention takes neither limit nor after' };
    const count = whole(attention, ATTENTION_MAX);
    return count === undefined
      ? { error: `attention must be a whole number from 1 to ${ATTENTION_MAX}` }
      : { attention: count };
  }
  const limitText = params.get('limit');
  const limit = limitText === null ? LIMIT_DEFAULT : whole(limitText, LIMIT_MAX);
  if (limit === undefined) return { error: `limit must be a whole number from 1 to ${LIMIT_MAX}` };
  const after = params.get('after');
  if (after === null) return { limit };
  if (!isDeviceId(after)) return { error: `after must be a device id: ${DEVICE_ID_RULE}` };
  return { limit, after };
}

function whole(text: string, max: number): number | undefined {
  const n = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
  return n >= 1 && n <= max ? n : undefined;
}
