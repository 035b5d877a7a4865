// The alerting chain for real: the backend and the device service (emulator) on the MongoDB stand-in, scraped by a
// real Prometheus with deploy/prometheus's rules, sending to a real Alertmanager with deploy/prometheus's routes and
// inhibition, which notifies a webhook this test runs. Only the waits are shortened (the `for:`s, the groups'
// intervals). A database hang pages once, for the database; the Watchdog keeps arriving; the recovery is told; and
// an Alertmanager that is down is a metric and an alert in Prometheus, which keeps evaluating meanwhile.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnService } from './support/spawn-service.ts';
import { startMongoProcess } from './support/mongo-process.ts';
import { startPrometheus, type PrometheusServer } from './support/prometheus-server.ts';
import { startAlertmanager, type AlertmanagerServer } from './support/alertmanager-server.ts';
import { startAlertWebhook, type AlertWebhook, type Notification } from './support/alert-webhook.ts';
import { shortAlertmanagerConfig, shortRules } from './support/alert-rules.ts';
import { stopAll, type Spawned } from './support/spawn-process.ts';
import { waitFor } from './support/deadline.ts';
import { freePort } from '../tools/free-port.ts';

const test = suite('alertmanager');
let prometheus: PrometheusServer | undefined;
let alertmanager: AlertmanagerServer | undefined;
let webhook: AlertWebhook | undefined;
const services: Spawned[] = [];

test.after.each(async () => {
  await prometheus?.stop();
  await alertmanager?.stop();
  await webhook?.close();
  prometheus = alertmanager = webhook = undefined;
  // Not stopAll(): the second test's Prometheus runs from the start (below); test.after stops the rest.
  await Promise.all(services.splice(0).map((service) => service.stop()));
});

const WAIT = { timeout: 60_000, interval: 250 };
/**
 * The Watchdog repeated at every flush of its group (each second): a repeat_interval of a second would lose half of
 * them, the time since the last one being a hair under it at each flush.
 */
const WATCHDOG_REPEAT = '500ms';

/** A Prometheus sending to a port where nothing listens until the test that uses it starts an Alertmanager there. */
async function startUndelivered() {
  const port = await freePort();
  const prometheus = await startPrometheus({
    targets: {},
    rules: shortRules(() => '1s'),
    alertmanagers: [`http://127.0.0.1:${port}`],
    scrapeSelf: true,
  });
  return { port, prometheus };
}

// Started with the file: its failed deliveries and the alert on them build up while the first test runs.
let undelivered: ReturnType<typeof startUndelivered> | undefined;
test.before(() => {
  undelivered = startUndelivered();
  undelivered.catch(() => {}); // the test that awaits it reports the failure
});
test.after(async () => {
  await (await undelivered?.catch(() => undefined))?.prometheus.stop();
  await stopAll();
});
// The cause fires first and the consequences after it, as with the shipped 1 min against 5–15 min.
const forOf = (alert: string) => (alert === 'DatabaseNotReady' ? '1s' : '4s');
const names = (n: Notification) => n.alerts.map((a) => a.labels.alertname).join(',');
const outage = (n: Notification) => n.receiver !== '/watchdog';

/** The backend and the device service on the stand-in, in local mode: /metrics on each service's own port, and the
 * device reads its emulator (a reading a second). */
async function startServices() {
  const mongo = await startMongoProcess();
  services.push(mongo);
  const backend = await spawnService('backend/main.ts', { env: { NODE_ENV: 'local', MONGODB_URI: mongo.uri } });
  services.push(backend);
  const device = await spawnService('device/main.ts', { env: { NODE_ENV: 'local', BACKEND_URL: backend.url } });
  services.push(device);
  return { mongo, backend, device };
}

test('a database hang pages once, for the database; the Watchdog keeps arriving; the recovery is told', async () => {
  // The services start while Alertmanager and its webhook do.
  const hook = (webhook = await startAlertWebhook());
  const [{ mongo, backend, device }, am] = await Promise.all([
    startServices(),
    startAlertmanager(shortAlertmanagerConfig(hook.url, WATCHDOG_REPEAT)).then((started) => (alertmanager = started)),
  ]);
  const p = (prometheus = await startPrometheus({
    targets: { backend: backend.url, device: device.url },
    rules: shortRules(forOf),
    alertmanagers: [am.url],
  }));
  const watchdogs = () => hook.received.filter((n) => n.receiver === '/watchdog');
  const ready = async (job: string) => (await p.query(`service_ready{job="${job}"}`))[0]?.value === 1;
  await waitFor(async () => (await ready('backend')) && (await ready('device')), { ...WAIT, what: 'both ready' });
  await waitFor(() => watchdogs().length >= 3, { ...WAIT, what: 'three Watchdog notifications' });
  assert.ok(
    watchdogs().every((n) => names(n) === 'Watchdog' && n.status === 'firing'),
    JSON.stringify(watchdogs()),
  );

  const hungAt = hook.received.length;
  mongo.signal('SIGSTOP');
  // The consequences fire in Prometheus and reach Alertmanager, which holds them inhibited by DatabaseNotReady.
  const suppressed = async (alertname: string, job: string) =>
    (await am.alerts()).some(
      (a) =>
        a.labels.alertname === alertname &&
        a.labels.job === job &&
        a.status.state === 'suppressed' &&
        a.status.inhibitedBy.length > 0,
    );
  await waitFor(() => suppressed('ServiceNotReady', 'backend'), { ...WAIT, what: 'backend ServiceNotReady inhibited' });
  await waitFor(() => suppressed('DeviceBacklogGrowing', 'device'), { ...WAIT, what: 'device backlog inhibited' });
  // Three more Watchdogs, a second apart: Alertmanager has flushed every group since (each waits a second), and the
  // Watchdog goes on.
  const watchdogsAtInhibition = watchdogs().length;
  await waitFor(() => watchdogs().length >= watchdogsAtInhibition + 3, { ...WAIT, what: 'Watchdog during outage' });
  const duringOutage = hook.received.slice(hungAt).filter(outage);
  assert.equal(
    duringOutage.map((n) => `${n.receiver} ${n.status} ${names(n)}`),
    ['/page firing DatabaseNotReady'],
  );
  assert.is(duringOutage[0]!.alerts[0]!.labels.job, 'backend');

  mongo.signal('SIGCONT');
  const resolved = await waitFor(
    () =>
      hook.received.find((n) => n.receiver === '/page' && n.status === 'resolved' && names(n) === 'DatabaseNotReady'),
    { ...WAIT, what: 'DatabaseNotReady resolved notification' },
  );
  assert.is(resolved.alerts[0]!.status, 'resolved');
  const afterRecovery = watchdogs().length;
  await waitFor(() => watchdogs().length > afterRecovery, { ...WAIT, what: 'Watchdog after recovery' });
});

test('an Alertmanager that is down: failed deliveries counted, AlertsNotDelivered fires, nothing blocks', async () => {
  const { port, prometheus: p } = await undelivered!;
  const hook = (webhook = await startAlertWebhook());
  const value = async (expr: string) => (await p.query(expr))[0]?.value;
  await waitFor(async () => ((await value('prometheus_notifications_errors_total')) ?? 0) > 0, {
    ...WAIT,
    what: 'failed deliveries counted',
  });
  assert.is(await value('prometheus_notifications_alertmanagers_discovered'), 1);
  // Rules are evaluated all the same: the Watchdog fires, and so does the alert on the failed deliveries.
  assert.is(await value('ALERTS{alertname="Watchdog",alertstate="firing"}'), 1);
  await waitFor(async () => (await value('ALERTS{alertname="AlertsNotDelivered",alertstate="firing"}')) === 1, {
    ...WAIT,
    what: 'AlertsNotDelivered firing',
  });

  // Once an Alertmanager answers there, what Prometheus holds is delivered.
  alertmanager = await startAlertmanager(shortAlertmanagerConfig(hook.url, WATCHDOG_REPEAT), port);
  await waitFor(() => hook.received.some((n) => n.receiver === '/watchdog'), { ...WAIT, what: 'Watchdog delivered' });
});

test.run();
