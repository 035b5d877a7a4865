// The status page in real Chromium against real backend, device and frontend processes (MongoDB is the stand-in).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'puppeteer-core';
import { startMongoStandin, type MongoStandin } from '../dev/mongo-standin/server.ts';
import { launchBrowser, type LaunchedBrowser } from '../smoke/browser.ts';
import { REFRESH_MS } from '../frontend/public/board-view.js';
import { auditPage } from './support/page-audit.ts';
import { openWatchedPage } from './support/watched-page.ts';
import { spawnService, root, type Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';

const DEVICE_ID = 'emulator-test';
const STATUS_TIMEOUT_MS = 1000;
/**
 * How long a wait on the page may take before the test fails instead of hanging: several refresh periods. How soon
 * the page shows a change is not timed here.
 */
const DEADLINE_MS = REFRESH_MS * 5 + 15_000;
// Screenshots for a person to look at; the folder is git-ignored.
const SHOTS = join(root, 'smoke-artifacts', 'frontend-browser');

let mongo: MongoStandin | undefined;
let launched: LaunchedBrowser | undefined;
let backend: Service;
let device: Service;
let frontend: Service;
let page: Page;
const problems: string[] = [];

test.before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  mongo = await startMongoStandin();
  backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: `${mongo.url}/status` } });
  device = await spawnService('device/main.ts', { env: { NODE_ENV: 'local', BACKEND_URL: backend.url, DEVICE_ID } });
  frontend = await spawnService('frontend/main.ts', {
    env: {
      // Local mode: the fleet is shown to everyone, as these checks need (sign-in: frontend-tls-browser.test.ts).
      NODE_ENV: 'local',
      BACKEND_URL: backend.url,
      DEVICE_URL: device.url,
      STATUS_TIMEOUT_MS: String(STATUS_TIMEOUT_MS),
    },
    waitPath: '/',
  });
  launched = await launchBrowser();
  page = await openWatchedPage(launched.browser, problems, { httpErrors: true });
});

test.after(async () => {
  await launched?.close();
  await stopAll();
  await mongo?.close();
});

/** The panel's verdict and its rows as label → text, read from the rendered page. */
function readPanel(id: string) {
  return page.evaluate((panelId) => {
    const panel = document.querySelector(`[data-panel="${panelId}"]`);
    const rows: Record<string, string> = {};
    // A failing check's since and why, shown under its state.
    const details: Record<string, string> = {};
    for (const row of panel?.querySelectorAll('.row') ?? []) {
      const label = row.querySelector('dt')?.textContent ?? '';
      const detail = row.querySelector('.check-detail');
      // The value is the dd's first element (a badge, a time or a span); the detail follows it.
      const dd = row.querySelector('dd');
      rows[label] = (dd?.firstElementChild ?? dd)?.textContent ?? '';
      if (detail) details[label] = detail.textContent ?? '';
    }
    return {
      verdict: panel?.querySelector('.verdict')?.textContent ?? null,
      tone: panel?.getAttribute('data-tone') ?? null,
      rows,
      details,
      note: panel?.querySelector('.note')?.textContent ?? null,
    };
  }, id);
}

const verdictIs = (id: string, text: string, timeout: number) =>
  page.waitForFunction(
    (panelId, wanted) => document.querySelector(`[data-panel="${panelId}"] .verdict`)?.textContent === wanted,
    { timeout, polling: 50 },
    id,
    text,
  );

test(
  'the page loads and shows both services ready, ' + 'each check, uptime, environment and the latest reading',
  async () => {
    const res = await page.goto(frontend.url, { waitUntil: 'load', timeout: 15_000 });
    assert.is(res?.status(), 200);
    assert.is(await page.$eval('h1', (h) => h.textContent), 'System status');
    // The device needs a moment to open its emulated port and its socket to the backend.
    await verdictIs('backend', 'Ready', 15_000);
    await verdictIs('device', 'Ready', 15_000);
    await page.waitForFunction(
      (id) =>
        [...document.querySelectorAll('.device-card')].some(
          (card) => card.getAttribute('data-device') === id && card.querySelector('.reading-value'),
        ),
      { timeout: 15_000 },
      DEVICE_ID,
    );

    const b = await readPanel('backend');
    assert.is(b.tone, 'good');
    assert.equal(
      [b.rows.Liveness, b.rows.Readiness, b.rows.database, b.rows.Environment],
      ['OK', 'Ready', 'connected', 'production'],
    );
    assert.match(b.rows.Uptime ?? '', /^\d+ s$|^\d+ min \d+ s$/);
    const d = await readPanel('device');
    assert.equal([d.rows.serial, d.rows.backend, d.rows.Environment], ['emulator', 'connected', 'local']);
    assert.is((await readPanel('readings')).verdict, 'Device connected');
    const card = await page.$eval('.device-card', (c) => ({
      device: c.getAttribute('data-device'),
      value: c.querySelector('.reading-value')?.textContent ?? '',
      age: c.querySelector('.age')?.textContent ?? '',
      meta: c.querySelector('.card-meta')?.textContent ?? '',
    }));
    assert.is(card.device, DEVICE_ID);
    assert.match(card.value, /^temperature_c=\d+\.\d\d$/, "the emulator's reading");
    assert.match(card.age, /^just now$|^\d+ s ago$/);
    assert.match(card.meta, /^#\d+ read at \d\d:\d\d:\d\d/);
    assert.equal(await auditPage(page), [], 'accessibility checks');
    assert.is(await page.$eval('#summary', (s) => s.textContent), 'All services ready');
    assert.match(await page.$eval('#refreshed', (t) => t.textContent ?? ''), /^\d\d:\d\d:\d\d$/);
    await page.screenshot({ path: join(SHOTS, 'ready.png'), fullPage: true });
    assert.equal(problems, []);
  },
);

test('it refreshes itself: the check time moves on without a reload', async () => {
  const first = await page.$eval('#board', (m) => m.getAttribute('data-checked-at'));
  await page.waitForFunction(
    (before) => document.querySelector('#board')?.getAttribute('data-checked-at') !== before,
    { timeout: DEADLINE_MS, polling: 50 },
    first,
  );
});

test('at phone width nothing scrolls sideways', async () => {
  await page.setViewport({ width: 360, height: 740 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await page.screenshot({ path: join(SHOTS, 'phone.png'), fullPage: true });
  await page.setViewport({ width: 1280, height: 800 });
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the 360px viewport`);
});

test('a killed backend shows as unreachable on a later refresh, and the page keeps working', async () => {
  backend.signal('SIGKILL');
  await backend.waitExit(5000);
  await verdictIs('backend', 'Unreachable', DEADLINE_MS);
  const b = await readPanel('backend');
  assert.is(b.tone, 'bad');
  assert.equal([b.rows.Liveness, b.rows.Readiness], ['Unreachable', 'Unreachable']);
  assert.match(b.note ?? '', /^unreachable: connection refused at 127\.0\.0\.1:\d+ \(is the service running\?\)$/);
  assert.match(await page.$eval('#summary', (s) => s.textContent ?? ''), /^Backend: unreachable/);
  // The device service notices its socket to the backend is gone and reports itself not ready.
  await verdictIs('device', 'Not ready', DEADLINE_MS);
  const device = await readPanel('device');
  assert.is(device.rows.backend, 'disconnected');
  // Since when, as the device service says (its readiness details), at the page's clock.
  assert.match(device.details.backend ?? '', /^since \d\d:\d\d:\d\d/);
  assert.is((await readPanel('readings')).verdict, 'Unavailable');
  // The readiness timeline keeps the change: ready, then unreachable, each a bar in the strip.
  const timeline = await page.$eval('[data-panel="backend"] .timeline', (t) => ({
    tones: [...t.querySelectorAll('rect')].map((r) => r.getAttribute('data-tone')),
    text: t.querySelector('.timeline-text')?.textContent ?? '',
    label: t.querySelector('svg')?.getAttribute('aria-label') ?? '',
  }));
  assert.equal(timeline.tones, ['good', 'bad']);
  assert.match(timeline.text, /^1 change in the last .*; unreachable since \d\d:\d\d:\d\d$/);
  assert.match(timeline.label, /^Readiness over the last hour: ready from [\d:]+, unreachable from [\d:]+$/);
  assert.equal(await auditPage(page), [], 'accessibility checks with a timeline of two states');
  await page.screenshot({ path: join(SHOTS, 'backend-down.png'), fullPage: true });
  assert.equal(problems, []);
});

test('when the frontend itself goes away the page says so and keeps the last data, without a page error', async () => {
  await frontend.stop();
  await page.waitForFunction(() => document.querySelector('#summary')?.textContent?.startsWith('Status unavailable'), {
    timeout: DEADLINE_MS,
    polling: 50,
  });
  assert.ok(await page.$eval('#board', (m) => m.hasAttribute('data-stale')));
  assert.is((await readPanel('backend')).verdict, 'Unreachable', 'last data still shown');
  // The browser reports the refused fetch itself; nothing else may appear.
  const unexpected = problems.filter((p) => !/ERR_CONNECTION_REFUSED/.test(p));
  assert.equal(unexpected, []);
  assert.ok(problems.length > 0, 'the refused /status.json requests were seen');
});

test.run();
