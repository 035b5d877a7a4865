// The real Prometheus scraping the real backend (on the MongoDB stand-in as a process): through its HTTP API the
// readiness series follows the database stopped (SIGSTOP) and continued, the alert rules of deploy/prometheus (with a
// test-only `for:` of 2 s) go pending and firing and resolve, and a backend that is gone fires ScrapeTargetDown.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnService, type Service } from './support/spawn-service.ts';
import { startMongoProcess, type MongoProcess } from './support/mongo-process.ts';
import { startPrometheus, type PrometheusServer } from './support/prometheus-server.ts';
import { stopAll } from './support/spawn-process.ts';
import { waitFor } from './support/deadline.ts';
import { shortRules } from './support/alert-rules.ts';

const test = suite('prometheus');
// One stand-in, backend and Prometheus for the file: the first test leaves the database running again, the last
// stops the backend.
let mongo: MongoProcess;
let backend: Service;
let prometheus: PrometheusServer;

test.before(async () => {
  mongo = await startMongoProcess();
  backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri } });
  prometheus = await startPrometheus({ targets: { backend: backend.metricsUrl }, rules: shortRules() });
});

test.after(async () => {
  mongo?.signal('SIGCONT');
  await prometheus?.stop();
  await stopAll();
});

const WAIT = { timeout: 30_000, interval: 100 };

test('the database check follows a database stopped and continued; ServiceNotReady fires and ends', async () => {
  const p = prometheus;
  const databaseReady = async () => (await p.query('service_check_ready{job="backend",check="database"}'))[0]?.value;
  const alert = async (state: string) =>
    (await p.query(`ALERTS{alertname="ServiceNotReady",alertstate="${state}",job="backend"}`)).length > 0;

  await waitFor(async () => (await databaseReady()) === 1, { ...WAIT, what: 'database check 1 in Prometheus' });
  mongo.signal('SIGSTOP');
  await waitFor(async () => (await databaseReady()) === 0, { ...WAIT, what: 'database check 0 after SIGSTOP' });
  await waitFor(() => alert('pending'), { ...WAIT, what: 'ServiceNotReady pending' });
  await waitFor(() => alert('firing'), { ...WAIT, what: 'ServiceNotReady firing' });
  const stopped = await p.query('service_check_state{job="backend",check="database",state="disconnected"}');
  assert.is(stopped[0]?.value, 1);

  mongo.signal('SIGCONT');
  await waitFor(async () => (await databaseReady()) === 1, { ...WAIT, what: 'database check 1 after SIGCONT' });
  await waitFor(async () => !(await alert('firing')) && !(await alert('pending')), {
    ...WAIT,
    what: 'ServiceNotReady resolved',
  });
  const changes = await p.query('backend_database_state_changes_total{job="backend",state="disconnected"}');
  assert.ok(changes[0]!.value >= 1, 'the stop counted as a state change');
});

test('a backend that is gone fires ScrapeTargetDown', async () => {
  const p = prometheus;
  await waitFor(async () => (await p.query('up{job="backend"}'))[0]?.value === 1, { ...WAIT, what: 'up 1' });
  await backend.stop();
  await waitFor(async () => (await p.query('up{job="backend"}'))[0]?.value === 0, { ...WAIT, what: 'up 0' });
  await waitFor(
    async () => (await p.query('ALERTS{alertname="ScrapeTargetDown",alertstate="firing",job="backend"}')).length > 0,
    { ...WAIT, what: 'ScrapeTargetDown firing' },
  );
});

test.run();
