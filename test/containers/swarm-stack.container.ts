// deploy/swarm/stack.yaml on a real single-node swarm: it converges with two backend replicas behind HAProxy, which
// sends traffic only to ready replicas (a draining one, a database that hangs); without DEVICE_TOKEN the device is
// refused; a second deploy is a no-op; `docker stack rm` leaves the volumes, which can then be removed.
import * as assert from 'uvu/assert';
import { CONVERGE_MS, swarmSuite } from './support/swarm-suite.ts';
import { request } from 'node:http';
import { waitFor } from '../support/deadline.ts';
import { docker, dockerOk } from './support/swarm.ts';
import { createRequestLoop, describeFailures, failures } from './support/request-loop.ts';

const { test, swarmTest, stack } = await swarmSuite('swarm stack', import.meta.filename, {
  env: { DEVICE_TOKEN: '' },
  beforeRemove: async () => {
    const database = await stack.running('database').catch(() => []);
    for (const task of database) await docker(['kill', '-s', 'CONT', task.container]); // never leave it stopped
  },
});
// No DEVICE_TOKEN: the stack must still come up, with the device refused.
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
  'without DEVICE_TOKEN: the backend refuses the device socket (401), the device says "unauthorized"',
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
        return response.status === 503 && body.checks.backend === 'unauthorized' ? body : undefined;
      },
      { timeout: 10_000, interval: 200, what: 'device checks.backend = "unauthorized"' },
    );
    assert.is(ready.checks.backend, 'unauthorized');
  },
);

swarmTest('a second `docker stack deploy` of the same file changes nothing: same specs, no task replaced', async () => {
  const services = ['database', 'backend', 'lb', 'frontend', 'device'];
  const specs = await Promise.all(services.map((s) => stack.inspect<unknown>(s, '.Spec')));
  const tasks = (await Promise.all(services.map((s) => stack.running(s)))).flat().map((task) => task.id);
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
    const [victim] = await stack.running('backend');
    const address = (
      await dockerOk([
        'inspect',
        '--format',
        '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}',
        victim!.container,
      ])
    ).trim();
    const loop = createRequestLoop(await stack.url('lb', 3001), ['/api/ready', '/api/health']);
    await waitFor(() => loop.answers.some((answer) => answer.address === address), {
      timeout: 10_000,
      what: 'an answer from the replica about to be stopped',
    });
    const signalledAt = Date.now();
    await dockerOk(['kill', '-s', 'TERM', victim!.container]);
    // Its drain (SHUTDOWN_DELAY_MS 3000) ends with its exit; Swarm then starts a replacement.
    await waitFor(async () => !(await stack.running('backend')).some((task) => task.id === victim!.id), {
      timeout: 20_000,
      interval: 200,
      what: 'the drained task to end',
    });
    const answers = await loop.stop();
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
