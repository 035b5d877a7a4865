// The status page's readings in real Chromium: a real frontend process against fake backend and device services
// on port 0 that serve readings, so what the page must show is known exactly.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatAge, formatClock } from '../frontend/public/format.js';
import { healthyBody, readyBody } from './support/fake-http-server.ts';
import { deviceEntry, fakeReadings } from './support/fake-readings.ts';
import { auditBothSchemes, auditPage } from './support/page-audit.ts';
import { root } from './support/spawn-service.ts';
import { fakeStatusStackPerFile } from './support/fake-status-stack.ts';
import { pageBoxOf } from './support/watched-page.ts';

// Screenshots for a person to look at; the folder is git-ignored.
const SHOTS = join(root, 'smoke-artifacts', 'frontend-readings');
const NEWEST = new Date(Date.now() - 12_000);
// 20.00, 20.25 … 22.25, repeating: min 20.00, max 22.25, and the newest (i = 57) is 21.75.
const emulator = fakeReadings({
  deviceId: 'emulator-1',
  count: 58,
  newest: NEWEST,
  value: (i) => `temperature_c=${(20 + (i % 10) * 0.25).toFixed(2)}`,
});
const door = fakeReadings({ deviceId: 'door <b>&', count: 4, newest: NEWEST, value: (i) => (i % 2 ? 'open' : 'shut') });
const readingsRoute = (deviceId: string) => `/api/readings?deviceId=${encodeURIComponent(deviceId)}&limit=60`;
const backlog = (unacknowledged: number, spoolBytes: number, dropped: number) =>
  healthyBody({ environment: 'local', readings: { unacknowledged, spoolBytes, dropped } });

const stack = fakeStatusStackPerFile({
  shots: SHOTS,
  backend: {
    '/api/devices': { status: 200, body: { devices: [deviceEntry(emulator), deviceEntry(door)] } },
    [readingsRoute('emulator-1')]: { status: 200, body: { readings: emulator } },
    [readingsRoute('door <b>&')]: { status: 200, body: { readings: door } },
  },
  device: { '/api/health': { status: 200, body: backlog(0, 0, 0) } },
  statusTimeoutMs: 1000,
});

/** One device's card as the page shows it, read in one go with the time the data was checked. */
function readCard(deviceId: string) {
  // No helper functions inside: the TypeScript loader would wrap them in `__name()`, which the page lacks.
  return stack.page.evaluate(
    (id, fields) => {
      const card = [...document.querySelectorAll('.device-card')].find((c) => c.getAttribute('data-device') === id);
      const svg = card?.querySelector('svg.chart-plot');
      const box = svg?.getBoundingClientRect();
      const text = Object.fromEntries(
        Object.entries(fields).map(([name, selector]) => [name, card?.querySelector(selector)?.textContent ?? null]),
      );
      return {
        checkedAt: document.querySelector('#board')?.getAttribute('data-checked-at') ?? '',
        text,
        ageIso: card?.querySelector('.age')?.getAttribute('datetime') ?? null,
        chart: svg
          ? {
              role: svg.getAttribute('role'),
              label: svg.getAttribute('aria-label'),
              line: svg.querySelector('.chart-line')?.getAttribute('d') ?? '',
              newest: svg.querySelector('.chart-newest')?.getAttribute('d') ?? '',
              size: [Math.round(box?.width ?? 0), Math.round(box?.height ?? 0)],
            }
          : null,
      };
    },
    deviceId,
    CARD_FIELDS,
  );
}

const CARD_FIELDS = {
  title: 'h3',
  state: '.badge',
  value: '.reading-value',
  age: '.age',
  meta: '.card-meta',
  note: '.note',
  max: '.chart-max',
  min: '.chart-min',
  from: '.chart-from',
  to: '.chart-to',
};

const panelText = (id: string, selector: string) =>
  stack.page.evaluate((p, s) => document.querySelector(`[data-panel="${p}"] ${s}`)?.textContent ?? null, id, selector);
const rows = (id: string) =>
  stack.page.evaluate((p) => {
    const found: Record<string, string> = {};
    for (const row of document.querySelectorAll(`[data-panel="${p}"] .row`)) {
      found[row.querySelector('dt')?.textContent ?? ''] = row.querySelector('dd')?.textContent ?? '';
    }
    return found;
  }, id);

test('each device has a card: the chart of its numbers, the newest value, its age, what is stored', async () => {
  const res = await stack.page.goto(stack.frontend.url, { waitUntil: 'load', timeout: 15_000 });
  assert.is(res?.status(), 200);
  await stack.page.waitForSelector('.device-card svg.chart-plot', { timeout: 15_000 });
  const { checkedAt, text: card, ageIso, chart } = await readCard('emulator-1');
  const age = Date.parse(checkedAt) - NEWEST.getTime();
  assert.is(card.title, 'emulator-1');
  assert.is(card.state, 'Connected');
  assert.is(card.value, 'temperature_c=21.75');
  assert.is(card.age, formatAge(age));
  assert.match(card.age ?? '', /^\d+ s ago$/);
  assert.is(ageIso, NEWEST.toISOString());
  assert.is(card.meta, `#58 read at ${formatClock(NEWEST.toISOString())} · 58 readings stored`);
  assert.is(card.note, null);

  assert.ok(chart, 'a chart');
  assert.is(chart.role, 'img');
  const oldest = formatAge(Date.parse(checkedAt) - Date.parse(emulator.at(-1)!.timestamp));
  assert.is(
    chart.label,
    `temperature_c from ${oldest} to ${formatAge(age)} (58 readings): latest 21.75, min 20.00, max 22.25`,
  );
  assert.match(chart.line, /^M0 [\d.]+(L[\d.]+ [\d.]+){57}$/, 'one line through all 58 points, from the left edge');
  assert.match(chart.newest, /^M300 [\d.]+h0$/, 'the newest point is marked at the right edge');
  assert.ok(chart.size[0]! > 150 && chart.size[1]! > 40, `the chart is drawn at a readable size: ${chart.size}`);
  assert.equal([card.max, card.min, card.from, card.to], ['max 22.25', 'min 20.00', oldest, formatAge(age)]);

  // Words only: no chart, and the id (free text from the device) shown as text, never as markup.
  const words = await readCard('door <b>&');
  assert.is(words.text.title, 'door <b>&');
  assert.is(words.text.value, 'open');
  assert.is(words.chart, null);
  assert.is(words.text.note, 'Nothing to chart: these readings carry no number.');
  assert.is(await stack.page.$$eval('.device-card b', (b) => b.length), 0);

  assert.is(await panelText('readings', '.verdict'), '2 of 2 connected');
  assert.is(await panelText('readings', '.held'), null, 'nothing held, nothing said');
  assert.is((await rows('device')).Unacknowledged, 'none');
  await stack.page.screenshot({ path: join(SHOTS, 'ready.png'), fullPage: true });
  assert.equal(stack.problems, []);
});

test('the chart is exposed to assistive technology as an image named by its text alternative', async () => {
  const tree = await stack.page.accessibility.snapshot({ interestingOnly: true });
  const images: string[] = [];
  const walk = (node: typeof tree) => {
    if (!node) return;
    // The services' readiness timelines are images too, named for what they show; only the chart counts here.
    if (node.role === 'image' && !node.name?.startsWith('Readiness over the last hour')) images.push(node.name ?? '');
    node.children?.forEach(walk);
  };
  walk(tree);
  assert.equal(images.length, 1, `images: ${JSON.stringify(images)}`);
  assert.match(images[0]!, /^temperature_c from .* ago .*: latest 21\.75, min 20\.00, max 22\.25$/);
});

test("the page's accessibility checks pass, in the light and the dark scheme", async () => {
  assert.equal(await auditBothSchemes(stack.page), { light: [], dark: [] });
});

test('at phone width the cards and charts fit without sideways scrolling', async () => {
  await stack.page.setViewport({ width: 360, height: 740 });
  try {
    const overflow = await stack.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    const chartWidth = (await pageBoxOf(stack.page, 'svg.chart-plot')).width;
    await stack.page.screenshot({ path: join(SHOTS, 'phone.png'), fullPage: true });
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the 360px viewport`);
    assert.ok(chartWidth > 120, `chart is ${chartWidth}px wide at phone width`);
  } finally {
    await stack.page.setViewport({ width: 1280, height: 800 });
  }
});

test("degraded: one device's readings fail, it disconnects, and the device service holds a backlog", async () => {
  stack.backend.routes['/api/devices'] = {
    status: 200,
    body: { devices: [deviceEntry(emulator, false), deviceEntry(door)] },
  };
  stack.backend.routes[readingsRoute('emulator-1')] = {
    status: 503,
    body: { error: 'database unavailable: not connected' },
  };
  stack.device.routes['/api/health'] = { status: 200, body: backlog(1234, 187_392, 3) };
  stack.device.routes['/api/ready'] = {
    status: 503,
    body: readyBody('not_ready', { serial: 'emulator', backend: 'lost' }),
  };
  await stack.page.waitForFunction(
    () => document.querySelector('[data-panel="readings"] .held')?.textContent?.includes('1,234'),
    { timeout: 10_000, polling: 50 },
  );
  const { text: card, chart } = await readCard('emulator-1');
  assert.is(card.state, 'Disconnected');
  assert.is(card.value, 'temperature_c=21.75', 'the newest value is still shown');
  assert.is(chart, null);
  assert.is(card.note, 'readings: backend answered HTTP 503: database unavailable: not connected');
  assert.is((await readCard('door <b>&')).text.value, 'open', 'the other device is unaffected');
  assert.is(await panelText('readings', '.verdict'), '1 of 2 connected');
  assert.is(await panelText('readings', '.held'), '1,234 readings held on the device');
  const held = await rows('device');
  assert.equal(
    [held.Unacknowledged, held.Spool, held.Dropped],
    ['1,234 readings held on the device', '183.0 KiB', '3 readings (spool full)'],
  );
  assert.equal(await auditPage(stack.page), []);
  await stack.page.screenshot({ path: join(SHOTS, 'degraded.png'), fullPage: true });
  assert.equal(stack.problems, []);
});

test.run();
