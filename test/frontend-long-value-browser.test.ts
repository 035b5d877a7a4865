// Long legal values on the status page, in real Chromium: 90 devices whose values are 8 KiB of control characters
// (six times that once JSON-escaped) and one of 8,000 characters. The list is read (not "body too large"), every
// value is cut to a few lines and says how long it was, and no card grows with its value.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deviceEntry, fakeReadings } from './support/fake-readings.ts';
import { fakeStatusStackPerFile } from './support/fake-status-stack.ts';
import { SHOWN_VALUE_MAX } from '../frontend/reading-value.ts';

const NEWEST = new Date(Date.now() - 3_000);
const CONTROL = '\u0001'.repeat(8 * 1024);
const LONG = 'x'.repeat(8000);
const readings = (deviceId: string) =>
  fakeReadings({ deviceId, count: 60, newest: NEWEST, value: () => (deviceId === 'long-00' ? LONG : CONTROL) });
const ids = ['long-00', ...Array.from({ length: 89 }, (_, i) => `ctrl-${String(i + 1).padStart(2, '0')}`)];

const stack = fakeStatusStackPerFile({
  backend: {
    '/api/devices': { status: 200, body: { devices: ids.map((id) => deviceEntry(readings(id))), total: ids.length } },
    '/api/readings': (query) => ({ status: 200, body: { readings: readings(query.get('deviceId') ?? '') } }),
  },
  statusTimeoutMs: 3000,
});

test('8 KiB values of control characters and one of 8,000 characters: read, cut, and the layout holds', async () => {
  const served = JSON.stringify({ devices: ids.map((id) => deviceEntry(readings(id))) });
  assert.ok(Buffer.byteLength(served) > 4 * 1024 * 1024, `the list is ${Buffer.byteLength(served)} bytes served`);
  const res = await stack.page.goto(stack.frontend.url, { waitUntil: 'load', timeout: 15_000 });
  assert.is(res?.status(), 200);
  await stack.page.waitForSelector('[data-panel="readings"] table.fleet', { timeout: 15_000 });
  const shown = await stack.page.evaluate(() => {
    const panel = document.querySelector('[data-panel="readings"]')!;
    const card = panel.querySelector('.device-card[data-device="long-00"]');
    return {
      panelText: panel.textContent ?? '',
      count: panel.querySelector('.fleet-count')?.textContent ?? null,
      longValue: card?.querySelector('.reading-value')?.textContent ?? null,
      notes: [...panel.querySelectorAll('.device-card .note')].map((n) => n.textContent),
      cardHeights: [...panel.querySelectorAll('.device-card')].map((c) => c.getBoundingClientRect().height),
      valueHeights: [...panel.querySelectorAll('.reading-value')].map((v) => v.getBoundingClientRect().height),
      rowValue: panel.querySelector('table.fleet tbody tr .reading-value')?.textContent ?? null,
      rows: panel.querySelectorAll('table.fleet tbody tr').length,
      pageHeight: document.documentElement.scrollHeight,
      overflow: document.documentElement.scrollWidth - window.innerWidth,
    };
  });
  assert.not.match(shown.panelText, /too large/);
  assert.is(shown.count, '90 devices');
  assert.is(shown.longValue, `${'x'.repeat(SHOWN_VALUE_MAX)}… (8,000 characters)`);
  assert.is(shown.rowValue, `${'\u0001'.repeat(SHOWN_VALUE_MAX)}… (8,192 characters)`);
  assert.is(shown.rows, 82);
  assert.equal(
    shown.notes.filter((n) => /readings:/.test(n ?? '')),
    [],
    "every charted device's readings were read",
  );
  // An 8,000-character value made its card 8,700 px tall; cut, it takes a few lines like any other.
  const tallestValue = Math.max(...shown.valueHeights);
  const tallestCard = Math.max(...shown.cardHeights);
  assert.ok(tallestValue < 200, `a value is ${tallestValue}px tall`);
  assert.ok(tallestCard < 600, `a card is ${tallestCard}px tall: ${shown.cardHeights.join(', ')}`);
  assert.ok(shown.overflow <= 0, `the page is ${shown.overflow}px wider than the viewport`);
  assert.ok(shown.pageHeight < 82 * 120 + 4000, `the page is ${shown.pageHeight}px tall`);
  assert.equal(stack.problems, []);
});

test.run();
