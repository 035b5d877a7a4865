// deploy/swarm/stack.yaml on a real single-node swarm: it converges with two backend replicas behind HAProxy, which
// sends traffic only to ready replicas (a draining one, a database that hangs); the published port speaks HTTPS only;
// tokens are Docker secrets that `docker service inspect` does not show, and the device connects with its own; a
// second deploy is a no-op; `docker stack rm` leaves the volumes, which can then be removed.
// The Engine's own swarm (made one if it is none, never left: support/swarm.ts), one file at a time:
// test-exclusive: engine-swarm
import * as assert from 'uvu/assert';
import { CONVERGE_MS, swarmSuite } from './support/swarm-suite.ts';
import { request } from 'node:http';
import { waitFor } from '../support/deadline.ts';
import { docker, dockerOk } from './support/swarm.ts';
import { describeFailures, failures } from './support/request-loop.ts';
import { drainOneReplica } from './support/drain-replica.ts';
import { readFileSync } from 'node:fs';
import { httpsGet } from '../support/https-get.ts';
import { READ_TOKEN } from './support/deploy-secrets.ts';

const { test, swarmTest, stack } = await swarmSuite('swarm stack', import.meta.filename, {
  beforeRemove: async () => {
    const database = await stack.running('database').catch(() => []);
    for (const task of database) await docker(['kill', '-s', 'CONT', task.container]); // never leave it stopped
  },
});
// HAProxy checks /api/ready every 500 ms and marks a replica down after 2 failures, each check allowed 500 ms:
// 1.5 s; a shared 2-core machine gets 1.6× (the fault suite's margin).
const LB_BOUND_MS = 1500 * 1.6;
// The backend notices a hung database within 3 s (docs/readiness.md), then the load balancer's 1.5 s.
const DATABASE_HANG_BOUND_MS = (3000 + 1500) * 1.6;

swarmTest('converged: 2 backend replicas, each answering /api/ready 200 through the load balancer', async () => {
  const backends = await stack.running('backend');
  assert.is(backends.length, 2);
  assert.is(await stack.inspect<string>('backend', '.Spec.EndpointSpec.Mode'), 'dnsrr');
  const lb = await stack.url('lb', 3001);
  const seen = new Set<string>();
  for (let i = 0; i < 8; i++) {
    const response = await fetch(`${lb}/api/ready`);
    assert.is(response.status, 200);
    assert.is(((await response.json()) as { status: string }).status, 'ready');
    seen.add(response.headers.get('x-backend-address') ?? '');
  }
  assert.is(seen.size, 2, [...seen].join(', '));
});

swarmTest(
  'the device token is a Docker secret: the device connects with it; a socket without it gets 401',
  async () => {
    const lb = new URL(await stack.url('lb', 3001));
    const status = await new Promise<number>((resolve, reject) => {
      const upgrade = request({
        host: lb.hostname,
        port: lb.port,
        path: '/api/device/socket',
        headers: {
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
      upgrade.once('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      upgrade.once('upgrade', () => resolve(101));
      upgrade.once('error', reject);
      upgrade.end();
    });
    assert.is(status, 401);
    const device = await stack.url('device', 3003);
    const ready = await waitFor(
      async () => {
        const response = await fetch(`${device}/api/ready`);
        const body = (await response.json()) as { checks: { backend: string } };
        return body.checks.backend === 'connected' ? body : undefined;
      },
      { timeout: 20_000, interval: 200, what: 'device checks.backend = "connected"' },
    );
    assert.is(ready.checks.backend, 'connected');
  },
);

swarmTest(
  '`docker service inspect` and `docker inspect` of every service and task show no token and no key',
  async () => {
    const services = ['database', 'backend', 'lb', 'frontend', 'device'];
    const printed = [await dockerOk(['service', 'inspect', ...services.map(stack.service)])];
    for (const name of services)
      for (const task of await stack.running(name)) printed.push(await dockerOk(['inspect', task.container]));
    for (const text of printed) {
      for (const secret of stack.secrets.secrets) assert.not.ok(text.includes(secret), 'a secret is shown');
    }
    assert.match(printed[0]!, /DEVICE_TOKEN_FILE=\/run\/secrets\/device-token/);
  },
);

swarmTest('the published port 8443 speaks HTTPS only (TLS 1.2+), and the device list needs a read token', async () => {
  const url = (await stack.url('lb', 8443)).replace('http:', 'https:');
  const ca = readFileSync(stack.secrets.caFile, 'utf8');
  const health = await httpsGet(`${url}/api/health`, { ca });
  assert.is(health.status, 200);
  const old = await httpsGet(`${url}/api/health`, { ca, maxVersion: 'TLSv1.1' }).then(
    (answer) => `HTTP ${answer.status}`,
    () => 'refused',
  );
  assert.is(old, 'refused', 'TLS 1.1');
  const plain = await fetch(`${url.replace('https:', 'http:')}/api/health`, { signal: AbortSignal.timeout(5000) }).then(
    (response) => `HTTP ${response.status}`,
    () => 'no HTTP answer',
  );
  assert.is(plain, 'no HTTP answer');
  assert.is((await httpsGet(`${url}/api/devices`, { ca })).status, 401);
  const authorized = await httpsGet(`${url}/api/devices`, { ca, headers: { authorization: `Bearer ${READ_TOKEN}` } });
  assert.is(authorized.status, 200);
  const big = await httpsGet(`${url}/api/health`, { ca, headers: { 'x-padding': 'a'.repeat(20_000) } });
  assert.is(big.status, 431);
  assert.is(big.body, 'Request header fields too large: more than 16 KiB.\n');
});

swarmTest('a second `docker stack deploy` of the same file changes nothing: same specs, no task replaced', async () => {
  const services = ['database', 'backend', 'lb', 'frontend', 'device'];
  const specs = await Promise.all(services.map((s) => stack.inspect<unknown>(s, '.Spec')));
  // Every task, ended ones too: one that failed while the stack came up (a device before its backend) stays in the
  // history, and is no task the deploy added.
  const tasks = (await Promise.all(services.map((s) => stack.tasks(s)))).flat().map((task) => task.id);
  // The command says "Updating service …" for each one; Swarm compares the spec and replaces nothing.
  await stack.deploy();
  assert.equal(await Promise.all(services.map((s) => stack.inspect<unknown>(s, '.Spec'))), specs);
  const all = (await Promise.all(services.map((s) => stack.tasks(s)))).flat();
  assert.equal(all.map((task) => task.id).sort(), tasks.sort(), 'no task was added or replaced');
});

swarmTest(
  `a replica draining on SIGTERM gets no request within ${LB_BOUND_MS} ms, and no request fails; ` +
    'Swarm starts a new one',
  async () => {
    const { answers, address, signalledAt } = await drainOneReplica(stack);
    assert.is(failures(answers).length, 0, describeFailures(answers));
    const late = answers.filter((answer) => answer.address === address && answer.sentAt > signalledAt + LB_BOUND_MS);
    assert.is(late.length, 0, `${late.length} requests sent after the bound reached the draining replica`);
    const lastToIt = Math.max(...answers.filter((a) => a.address === address).map((a) => a.sentAt));
    console.log(
      `  ${answers.length} requests, 0 failed; the drained replica's last request was sent ` +
        `${lastToIt - signalledAt} ms after its SIGTERM`,
    );
    await stack.converged(CONVERGE_MS);
  },
);

swarmTest(
  `a hung database: the load balancer answers 503 within ${DATABASE_HANG_BOUND_MS} ms while both replicas stay ` +
    'healthy (liveness 200) and running; 200 again after it resumes',
  async () => {
    const lb = await stack.url('lb', 3001);
    const backends = await stack.running('backend');
    const [database] = await stack.running('database');
    await dockerOk(['kill', '-s', 'STOP', database!.container]);
    const stoppedAt = Date.now();
    try {
      await waitFor(async () => (await fetch(`${lb}/api/ready`)).status === 503, {
        timeout: DATABASE_HANG_BOUND_MS,
        interval: 50,
        what: 'the load balancer answering 503 (no ready replica)',
      });
      const took = Date.now() - stoppedAt;
      for (const task of backends) {
        const health = await dockerOk(['inspect', '--format', '{{.State.Health.Status}}', task.container]);
        assert.is(health.trim(), 'healthy', `${task.id}: liveness still passes`);
        const live = await dockerOk(['exec', task.container, 'node', '/app/healthcheck.cjs']).then(() => 0);
        assert.is(live, 0);
      }
      assert.equal(
        (await stack.running('backend')).map((task) => task.id).sort(),
        backends.map((task) => task.id).sort(),
        'Swarm left the replicas running',
      );
      console.log(`  no ready replica behind the load balancer ${took} ms after the database hung`);
    } finally {
      await dockerOk(['kill', '-s', 'CONT', database!.container]);
    }
    await waitFor(async () => (await fetch(`${lb}/api/ready`)).status === 200, {
      timeout: 10_000,
      interval: 50,
      what: '/api/ready 200 through the load balancer after the database resumed',
    });
  },
);

swarmTest('`docker stack rm` leaves the volumes (the data); `docker volume rm` removes them', async () => {
  await stack.remove();
  const volumes = await dockerOk(['volume', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${stack.name}`]);
  assert.equal(volumes.split('\n').filter(Boolean).sort(), [`${stack.name}_device-spool`, `${stack.name}_mongo-data`]);
  await stack.removeVolumes();
  const left = await dockerOk(['volume', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${stack.name}`]);
  assert.is(left.trim(), '');
});

test.run();
