// GET /metrics on the real backend and device service (the device stack: stand-in database, socat pty): each answer
// passes `promtool check metrics`; the readings counters follow every reading stored; the scrape answers while the
// database hangs and its check series changes; route labels are patterns; METRICS=off leaves no /metrics; outside
// local mode it is served on the management port (METRICS_PORT) only.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stackLogs, startDeviceStack, type DeviceStack } from './support/device-stack.ts';
import { spawnService, type Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { waitFor, withDeadline } from './support/deadline.ts';
import { lintMetrics } from './support/promtool.ts';
import { parseExposition, sampleValue, scrape } from './support/metrics-text.ts';

const test = suite('metrics');
// The tests that only read /metrics, and the one that writes readings and counts them, share one stack (nothing
// else writes readings there); the one that hangs the database has its own, and so do the local-mode services.
let shared: Promise<DeviceStack> | undefined;
const sharedStack = () => (shared ??= startDeviceStack());
let ownStack: DeviceStack | undefined;
const services: Service[] = [];

test.after.each(async () => {
  ownStack?.mongo.resume();
  await ownStack?.stop();
  ownStack = undefined;
  await Promise.all(services.splice(0).map((service) => service.stop()));
});
test.after(async () => {
  await (await shared?.catch(() => undefined))?.stop();
  await stopAll();
});

/** A local-mode device service, stopped after the test. */
async function localDevice(env: Record<string, string> = {}, waitPath?: false) {
  const service = await spawnService('device/main.ts', { env: { NODE_ENV: 'local', ...env }, waitPath });
  services.push(service);
  return service;
}

const writeLines = (stack: DeviceStack, prefix: string, count: number) =>
  stack.pty.write(Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}\n`).join(''));

async function metricValue(url: string, name: string, labels: Record<string, string> = {}) {
  const { status, text } = await scrape(url);
  assert.is(status, 200);
  return sampleValue(parseExposition(text), name, labels);
}

test('both /metrics pass promtool; every reading read is counted, stored, acknowledged and timed', async () => {
  const stack = await sharedStack();
  const backend = stack.backend();
  writeLines(stack, 'reading', 25);
  await waitFor(async () => (await metricValue(backend.metricsUrl, 'backend_readings_stored_total')) === 25, {
    timeout: 15_000,
    what: 'backend_readings_stored_total 25',
  });
  await waitFor(async () => (await metricValue(stack!.device.metricsUrl, 'device_reading_ack_seconds_count')) === 25, {
    timeout: 10_000,
    what: 'device_reading_ack_seconds_count 25',
  });
  for (const url of [backend.metricsUrl, stack.device.metricsUrl]) {
    const { status, type, text } = await scrape(url);
    assert.is(status, 200);
    assert.is(type, 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(lintMetrics(text), [], `promtool check metrics on ${url}`);
  }
  const device = parseExposition((await scrape(stack.device.metricsUrl)).text);
  assert.is(sampleValue(device, 'device_readings_read_total'), 25);
  assert.is(sampleValue(device, 'device_readings_unacknowledged'), 0);
  assert.ok(sampleValue(device, 'device_spool_bytes')! > 0, 'spool bytes');
  assert.is(sampleValue(device, 'service_check_ready', { check: 'serial' }), 1);
  assert.is(sampleValue(device, 'service_check_state', { check: 'backend', state: 'connected' }), 1);
  assert.is(sampleValue(device, 'service_ready'), 1);
  const back = parseExposition((await scrape(backend.metricsUrl)).text);
  assert.is(sampleValue(back, 'backend_device_sockets_open'), 1);
  assert.is(sampleValue(back, 'backend_database_write_duration_seconds_count', { outcome: 'error' }), undefined);
  assert.ok(sampleValue(back, 'backend_database_write_duration_seconds_count', { outcome: 'ok' })! >= 1);
  assert.ok(sampleValue(back, 'process_resident_memory_bytes')! > 0, 'default process metrics');
});

test('while the database hangs /metrics answers, the database check turns, the device backlog shows', async () => {
  const stack = (ownStack = await startDeviceStack());
  const backend = stack.backend();
  stack.mongo.hang();
  await waitFor(
    async () =>
      (await metricValue(backend.metricsUrl, 'service_check_state', { check: 'database', state: 'connected' })) === 0,
    { timeout: 15_000, what: 'database check leaves connected in /metrics' },
  );
  const { text } = await scrape(backend.metricsUrl);
  const samples = parseExposition(text);
  assert.is(sampleValue(samples, 'service_check_ready', { check: 'database' }), 0);
  assert.is(sampleValue(samples, 'service_ready'), 0);
  assert.is(sampleValue(samples, 'backend_database_state_changes_total', { state: 'disconnected' }), 1);
  assert.equal(lintMetrics(text), [], 'promtool check metrics while the database hangs');
  writeLines(stack, 'held', 5);
  await waitFor(async () => (await metricValue(stack!.device.metricsUrl, 'device_readings_unacknowledged')) === 5, {
    timeout: 10_000,
    what: 'device backlog of 5',
  });
  stack.mongo.resume();
  await waitFor(async () => (await metricValue(backend.metricsUrl, 'backend_readings_stored_total')) === 5, {
    timeout: 15_000,
    what: 'the 5 held readings stored after the database is back',
    explain: () => stackLogs(stack),
  });
  assert.is(await metricValue(backend.metricsUrl, 'service_check_ready', { check: 'database' }), 1);
});

test('route labels are route patterns or (unmatched), never a raw path; /metrics is not counted', async () => {
  const stack = await sharedStack();
  const { url, metricsUrl } = stack.backend();
  for (const path of ['/api/readings?deviceId=a&limit=1', '/api/readings?deviceId=b', '/no/such/7', '/metrics?x=1']) {
    await withDeadline(fetch(url + path), 10_000, path).then((res) => res.arrayBuffer());
  }
  const routes = new Set(
    parseExposition((await scrape(metricsUrl)).text)
      .filter((s) => s.name === 'http_request_duration_seconds_count')
      .map((s) => s.labels.route),
  );
  assert.ok(routes.has('/api/readings'), [...routes].join(' '));
  assert.ok(routes.has('(unmatched)'), [...routes].join(' '));
  assert.not.ok(routes.has('/no/such/7'));
  assert.not.ok(routes.has('/metrics'));
});

test('outside local mode /metrics is on METRICS_PORT only: 404 on the public port, only it on its own', async () => {
  const stack = await sharedStack();
  for (const service of [stack.backend(), stack.device]) {
    const onPublic = await scrape(service.url);
    assert.is(onPublic.status, 404, `${service.url}/metrics`);
    assert.not.match(onPublic.text, /service_ready/);
    assert.is((await scrape(service.metricsUrl)).status, 200);
    for (const path of ['/api/health', '/api/readings?deviceId=a', '/']) {
      const res = await withDeadline(fetch(service.metricsUrl + path), 10_000, path);
      assert.equal([res.status, await res.json()], [404, { error: 'the management port serves only GET /metrics' }]);
    }
  }
});

test('local mode keeps /metrics on the main port', async () => {
  const service = await localDevice();
  assert.is((await scrape(service.url)).status, 200);
});

test('METRICS=off: /metrics is 404 and the probes answer as before; METRICS=maybe is one line, exit 1', async () => {
  // Side by side: the refusal exits on its own while the other starts.
  const [service, refused] = await Promise.all([
    localDevice({ METRICS: 'off' }),
    localDevice({ METRICS: 'maybe' }, false),
  ]);
  assert.is((await scrape(service.url)).status, 404);
  assert.is((await withDeadline(fetch(`${service.url}/api/health`), 10_000, 'health')).status, 200);
  assert.is(await refused.waitExit(15_000), 1);
  assert.ok(
    refused.lines.some((line) => line.includes('METRICS=maybe is not valid: expected on or off')),
    refused.lines.join('\n'),
  );
});

test.run();
