// The status page's fleet in real Chromium: a real frontend process against a fake backend serving the
// /api/devices contract for 2,500 devices (test/support/fake-devices-api.ts), so what the page must show is known
// exactly: the count, the first page, the devices needing attention first, with its accessibility checks.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatAge } from '../frontend/public/format.js';
import { devicesApi, fakeFleet } from './support/fake-devices-api.ts';
import { fakeReadings } from './support/fake-readings.ts';
import { auditBothSchemes, auditPage } from './support/page-audit.ts';
import { root } from './support/spawn-service.ts';
import { fakeStatusStackPerFile } from './support/fake-status-stack.ts';
import { pageBoxOf } from './support/watched-page.ts';

// Screenshots for a person to look at; the folder is git-ignored.
const SHOTS = join(root, 'smoke-artifacts', 'frontend-fleet');
const HEARD = new Date(Date.now() - 5_000);
const LONG_AGO = new Date(Date.now() - 2 * 3600_000).toISOString();
const fleet = fakeFleet(2500, HEARD);
fleet[1999] = { ...fleet[1999]!, backlog: 1234 };
fleet[49] = { ...fleet[49]!, connected: false, lastSeenAt: LONG_AGO, lastReading: null };

const stack = fakeStatusStackPerFile({
  shots: SHOTS,
  backend: {
    '/api/devices': devicesApi(fleet),
    '/api/readings': (query) => ({
      status: 200,
      body: { readings: fakeReadings({ deviceId: query.get('deviceId') ?? '', count: 20, newest: HEARD }) },
    }),
  },
  statusTimeoutMs: 2000,
});

/** What the Readings panel shows of the fleet, read in one go with the time the data was checked. */
const readFleet = () =>
  // No helper functions inside: the TypeScript loader would wrap them in `__name()`, which the page lacks.
  stack.page.evaluate(() => {
    const panel = document.querySelector('[data-panel="readings"]')!;
    return {
      checkedAt: document.querySelector('#board')?.getAttribute('data-checked-at') ?? '',
      verdict: panel.querySelector('.verdict')?.textContent ?? null,
      count: panel.querySelector('.fleet-count')?.textContent ?? null,
      attention: [...panel.querySelectorAll('.attention-list li')].map((li) => [
        li.querySelector('.attention-device')?.textContent,
        li.querySelector('.attention-why')?.textContent,
      ]),
      attentionNote: panel.querySelector('.attention .note')?.textContent ?? null,
      cards: [...panel.querySelectorAll('.device-card')].map((c) => c.getAttribute('data-device')),
      rows: [...panel.querySelectorAll('table.fleet tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
      caption: panel.querySelector('table.fleet caption')?.textContent ?? null,
    };
  });

test('the fleet: its count, what needs attention first, a card for the first few and a row for the rest', async () => {
  const res = await stack.page.goto(stack.frontend.url, { waitUntil: 'load', timeout: 15_000 });
  assert.is(res?.status(), 200);
  await stack.page.waitForSelector('[data-panel="readings"] table.fleet', { timeout: 15_000 });
  const shown = await readFleet();
  assert.is(shown.count, '2,500 devices · the first 100 devices listed');
  assert.is(shown.verdict, '99 of the first 100 connected');
  const age = (iso: string) => formatAge(Date.parse(shown.checkedAt) - Date.parse(iso));
  assert.equal(shown.attention, [
    ['unit-02000', '1,234 readings held'],
    ['unit-00050', `disconnected · last heard ${age(LONG_AGO)}`],
  ]);
  assert.is(shown.attentionNote, null);
  assert.equal(
    shown.cards,
    fleet.slice(0, 8).map((d) => d.deviceId),
  );
  assert.is(shown.caption, 'Other listed devices');
  assert.is(shown.rows.length, 92);
  assert.equal(shown.rows[0], ['unit-00009', 'Connected', `temperature_c=20.25 ${age(HEARD.toISOString())}`, 'none']);
  assert.equal(shown.rows[41]!.slice(0, 2), ['unit-00050', 'Disconnected']);
  assert.equal(shown.rows[41]!.slice(2), ['none yet', 'none']);
  assert.ok(
    stack.backend.urls.includes('/api/devices?limit=100') && stack.backend.urls.includes('/api/devices?attention=5'),
    stack.backend.urls.slice(0, 12).join(' '),
  );
  await stack.page.screenshot({ path: join(SHOTS, 'fleet.png'), fullPage: true });
  const { y } = await pageBoxOf(stack.page, '[data-panel="readings"]');
  await stack.page.screenshot({ path: join(SHOTS, 'fleet-top.png'), clip: { x: 0, y, width: 1280, height: 1100 } });
  assert.equal(stack.problems, []);
});

test("the page's accessibility checks pass with the fleet shown, in the light and the dark scheme", async () => {
  assert.equal(await auditBothSchemes(stack.page), { light: [], dark: [] });
});

test('at phone width the fleet table scrolls on its own; the page does not scroll sideways', async () => {
  await stack.page.setViewport({ width: 360, height: 740 });
  try {
    const overflow = await stack.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    const clip = await pageBoxOf(stack.page, '[data-panel="readings"]');
    await stack.page.screenshot({ path: join(SHOTS, 'phone-readings.png'), clip });
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the 360px viewport`);
  } finally {
    await stack.page.setViewport({ width: 1280, height: 800 });
  }
});

test('the attention list failing is said in its place; the rest of the fleet stays', async () => {
  stack.backend.routes['/api/devices?attention=5'] = { status: 503, body: { error: 'database unavailable' } };
  await stack.page.waitForFunction(
    () => document.querySelector('[data-panel="readings"] .attention .note')?.textContent?.includes('503'),
    { timeout: 10_000, polling: 50 },
  );
  const shown = await readFleet();
  assert.equal(shown.attention, []);
  assert.is(shown.attentionNote, 'attention list: backend answered HTTP 503 without a device list');
  assert.is(shown.count, '2,500 devices · the first 100 devices listed');
  assert.is(shown.rows.length, 92);
  assert.equal(await auditPage(stack.page), []);
  assert.equal(stack.problems, []);
});

test.run();
