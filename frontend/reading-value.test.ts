// The read bounds hold the largest legal answer as the backend serves it; values are cut to what the page shows.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEVICE_ID_MAX_LENGTH, DEVICE_VALUE_MAX_BYTES } from '../lib/device-protocol.ts';
import { toDeviceView, type DeviceSummaryDocument } from '../backend/readings/device-summary.ts';
import { toView } from '../backend/readings/reading-document.ts';
import { servedListMaxBytes, shortenValue, SHOWN_VALUE_MAX } from './reading-value.ts';
import { DEVICE_LIST_MAX_BYTES, FLEET_PAGE } from './device-readings.ts';
import { RECENT_LIMIT, RECENT_MAX_BYTES } from './recent-readings.ts';

// The worst legal value for its served size: every byte a control character, escaped as six.
const value = '\u0001'.repeat(DEVICE_VALUE_MAX_BYTES);
const session = '\u0002'.repeat(DEVICE_ID_MAX_LENGTH);
const at = new Date('2026-01-01T00:00:00.000Z');

test("a full page of the worst legal devices, as the backend's own view serves it, fits the device-list bound", () => {
  const devices = Array.from({ length: FLEET_PAGE }, (_, i) => {
    const doc: DeviceSummaryDocument = {
      _id: `${i}`.padStart(DEVICE_ID_MAX_LENGTH, 'd'),
      session,
      latestKey: 'k',
      lastReading: { session, seq: Number.MAX_SAFE_INTEGER, timestamp: at, value },
      readingsStored: Number.MAX_SAFE_INTEGER,
      connected: true,
      replica: 'r',
      connection: 'c',
      lastSeenAt: at,
      backlog: Number.MAX_SAFE_INTEGER,
    };
    return toDeviceView(doc, at.getTime());
  });
  const body = JSON.stringify({ devices, total: Number.MAX_SAFE_INTEGER, next: 'd'.repeat(DEVICE_ID_MAX_LENGTH) });
  const bytes = Buffer.byteLength(body);
  assert.ok(bytes > 4 * 1024 * 1024, `${bytes} bytes: more than the 4 MiB the bound used to be`);
  assert.ok(bytes <= DEVICE_LIST_MAX_BYTES, `${bytes} bytes served, the bound is ${DEVICE_LIST_MAX_BYTES}`);
  assert.is(DEVICE_LIST_MAX_BYTES, servedListMaxBytes(FLEET_PAGE));
});

test('a full page of the worst legal readings fits the recent-readings bound', () => {
  const readings = Array.from({ length: RECENT_LIMIT }, (_, i) =>
    toView({ deviceId: 'd'.repeat(DEVICE_ID_MAX_LENGTH), session, seq: i + 1, timestamp: at, value, receivedAt: at }),
  );
  const bytes = Buffer.byteLength(JSON.stringify({ readings }));
  assert.ok(bytes > 1024 * 1024, `${bytes} bytes: more than the 1 MiB the bound used to be`);
  assert.ok(bytes <= RECENT_MAX_BYTES, `${bytes} bytes served, the bound is ${RECENT_MAX_BYTES}`);
});

test('a value up to SHOWN_VALUE_MAX characters is kept whole; a longer one is cut and says its length', () => {
  assert.equal(shortenValue('21.5'), { value: '21.5' });
  assert.equal(shortenValue('x'.repeat(SHOWN_VALUE_MAX)), { value: 'x'.repeat(SHOWN_VALUE_MAX) });
  assert.equal(shortenValue('x'.repeat(8000)), { value: `${'x'.repeat(SHOWN_VALUE_MAX)}…`, cutFrom: 8000 });
  // Characters, not UTF-16 units: 120 emoji are 240 units and whole; a cut never splits a pair.
  assert.equal(shortenValue('😀'.repeat(SHOWN_VALUE_MAX)), { value: '😀'.repeat(SHOWN_VALUE_MAX) });
  const cut = shortenValue('😀'.repeat(200));
  assert.equal(cut, { value: `${'😀'.repeat(SHOWN_VALUE_MAX)}…`, cutFrom: 200 });
});

test.run();
