// `npm run screenshots`: pictures of the status page, ready and degraded, for frontend/README.md. A real frontend
// process and real Chromium against fake backend and device services on port 0, so each picture shows a known
// state; run it again after changing the page. Writes docs/images/status-ready.png and status-degraded.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser } from '../../smoke/browser.ts';
import { healthyBody, readyBody, startFakeService } from '../support/fake-http-server.ts';
import { deviceEntry, fakeReadings } from '../support/fake-readings.ts';
import { devicesApi, type FakeFleetDevice } from '../support/fake-devices-api.ts';
import { spawnService, root } from '../support/spawn-service.ts';
import { stopAll } from '../support/spawn-process.ts';

const OUT = join(root, 'docs', 'images');
const WAIT_MS = 15_000;
const newest = new Date(Date.now() - 4000);
const sensor = fakeReadings({ deviceId: 'sensor-1', count: 60, newest });
const door = fakeReadings({
  deviceId: 'door-2',
  count: 6,
  newest,
  everyMs: 9000,
  value: (i) => (i % 2 ? 'open' : 'shut'),
});
/** The device as GET /api/devices lists it, with what the backend knows of its backlog and when it last heard. */
const listed = (readings: typeof sensor, connected = true, backlog = 0): FakeFleetDevice => ({
  ...(deviceEntry(readings, connected) as Omit<FakeFleetDevice, 'backlog' | 'lastSeenAt'>),
  backlog,
  lastSeenAt: newest.toISOString(),
});
const readingsRoute = (id: string) => `/api/readings?deviceId=${encodeURIComponent(id)}&limit=60`;
const deviceHealth = (unacknowledged: number, spoolBytes: number) =>
  healthyBody({ environment: 'production', readings: { unacknowledged, spoolBytes, dropped: 0 } });

const backend = await startFakeService({
  '/api/health': { status: 200, body: healthyBody({ database: { status: 'connected', name: 'app' } }) },
  '/api/ready': { status: 200, body: readyBody('ready', { database: 'connected' }) },
  '/api/devices': devicesApi([listed(sensor), listed(door)]),
  [readingsRoute('sensor-1')]: { status: 200, body: { readings: sensor } },
  [readingsRoute('door-2')]: { status: 200, body: { readings: door } },
});
const device = await startFakeService({
  '/api/health': { status: 200, body: deviceHealth(0, 0) },
  '/api/ready': { status: 200, body: readyBody('ready', { serial: 'connected', backend: 'connected' }) },
});
const launched = await launchBrowser();
try {
  const frontend = await spawnService('frontend/main.ts', {
    env: {
      // Local mode: the fleet is shown to everyone, as these checks need (sign-in: frontend-tls-browser.test.ts).
      NODE_ENV: 'local',
      BACKEND_URL: backend.url,
      DEVICE_URL: device.url,
      STATUS_TIMEOUT_MS: '1000',
    },
    waitPath: '/',
  });
  mkdirSync(OUT, { recursive: true });
  const page = await launched.browser.newPage();
  await page.setViewport({ width: 1100, height: 800 });
  await page.goto(frontend.url, { waitUntil: 'load', timeout: WAIT_MS });
  await page.waitForSelector('.device-card svg.chart-plot', { timeout: WAIT_MS });
  await page.screenshot({ path: join(OUT, 'status-ready.png'), fullPage: true });

  // The device service has lost the backend: it holds its readings, and the backend no longer lists it connected.
  device.routes['/api/health'] = { status: 200, body: deviceHealth(1234, 187_392) };
  device.routes['/api/ready'] = {
    status: 503,
    body: readyBody('not_ready', { serial: 'connected', backend: 'disconnected' }),
  };
  backend.routes['/api/devices'] = devicesApi([listed(sensor, false, 1234), listed(door)]);
  await page.waitForFunction(
    () => document.querySelector('[data-panel="readings"] .held')?.textContent?.includes('1,234'),
    { timeout: WAIT_MS, polling: 50 },
  );
  await page.screenshot({ path: join(OUT, 'status-degraded.png'), fullPage: true });
  console.log(
    `screenshots: ${join('docs', 'images', 'status-ready.png')}, ${join('docs', 'images', 'status-degraded.png')}`,
  );
} finally {
  await launched.close();
  await stopAll();
  await backend.close();
  await device.close();
}
