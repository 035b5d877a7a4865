// deploy/swarm/internal-tls.yaml on a real single-node swarm: the backend replicas serve HTTPS only, with the internal
// certificate from their Docker secrets, and HAProxy verifies it and still routes on readiness. Readings and health
// answer through the published 8443 from both replicas; a replica reached over plain HTTP on the stack's network
// answers nothing, over HTTPS it proves the name `backend` against the internal CA; the frontend and the device
// reach the lb over TLS too (https://lb:3443); a draining replica stops getting requests and none fails.
// The Engine's own swarm (made one if it is none, never left: support/swarm.ts), one file at a time:
// test-exclusive: engine-swarm
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { CONVERGE_MS, INTERNAL_TLS, swarmSuite } from './support/swarm-suite.ts';
import { docker, dockerOk } from './support/swarm.ts';
import { READ_TOKEN } from './support/deploy-secrets.ts';
import { drainOneReplica } from './support/drain-replica.ts';
import { describeFailures, failures } from './support/request-loop.ts';
import { httpsGet } from '../support/https-get.ts';
import { waitFor } from '../support/deadline.ts';

const { test, swarmTest, stack } = await swarmSuite('swarm internal TLS', import.meta.filename, {
  overlays: [INTERNAL_TLS],
});
// As in swarm-stack.container.ts: HAProxy's 1.5 s to mark a replica down, with the fault suite's margin of 1.6.
const LB_BOUND_MS = 1500 * 1.6;

/** Each running replica's address on the stack's network. */
async function replicaAddresses(): Promise<string[]> {
  const format = '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}';
  const tasks = await stack.running('backend');
  return Promise.all(
    tasks.map(async (task) => (await dockerOk(['inspect', '--format', format, task.container])).trim()),
  );
}

/** BACKEND_URL from a service's environment list. */
const findUrl = (env: string[]) => env.find((line) => line.startsWith('BACKEND_URL='))?.slice('BACKEND_URL='.length);

/** curl run inside the lb's container (on the stack's network): its exit code and the status it printed. */
async function curlFromLb(args: string[]): Promise<{ code: number; status: string }> {
  const [lb] = await stack.running('lb');
  const run = await docker([
    'exec',
    lb!.container,
    'curl',
    '-sS',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    '-m',
    '5',
    ...args,
  ]);
  return { code: run.code ?? -1, status: run.stdout.trim() };
}

swarmTest('through the published 8443: /api/health and /api/readings answer 200 from both TLS replicas', async () => {
  const url = (await stack.url('lb', 8443)).replace('http:', 'https:');
  const ca = readFileSync(stack.secrets.caFile, 'utf8');
  const replicas = new Set(await replicaAddresses());
  const seen = new Set<string>();
  for (let i = 0; i < 8; i++) {
    const path = i % 2 ? '/api/health' : '/api/readings?deviceId=device';
    const answer = await httpsGet(`${url}${path}`, { ca, headers: { authorization: `Bearer ${READ_TOKEN}` } });
    assert.is(answer.status, 200, `${path}: ${answer.body}`);
    seen.add(String(answer.headers['x-backend-address']));
  }
  assert.equal([...seen].sort(), [...replicas].sort());
});

swarmTest(
  'a replica over plain HTTP on the network answers nothing; over HTTPS it is `backend` by the internal CA',
  async () => {
    for (const address of await replicaAddresses()) {
      const plain = await curlFromLb([`http://${address}:3001/api/health`]);
      assert.not.equal(plain.code, 0, `plain HTTP to ${address} got an answer`);
      assert.is(plain.status, '000', `plain HTTP to ${address}`);
      const secure = await curlFromLb([
        '--cacert',
        '/run/secrets/internal-ca.pem',
        '--resolve',
        `backend:3001:${address}`,
        'https://backend:3001/api/health',
      ]);
      assert.equal(secure, { code: 0, status: '200' }, `HTTPS to ${address} as backend`);
      // The certificate names `backend` only: what HAProxy checks (verifyhost), so an address alone proves nothing.
      const otherName = await curlFromLb([
        '--cacert',
        '/run/secrets/internal-ca.pem',
        `https://${address}:3001/api/health`,
      ]);
      assert.is(otherName.status, '000', `HTTPS to ${address} by its address, not the name the certificate has`);
    }
  },
);

swarmTest('the frontend reads the backend through the lb over TLS (https://lb:3443, the internal CA)', async () => {
  const frontend = await stack.url('frontend', 3000);
  const document = (await (await fetch(`${frontend}/status.json`)).json()) as {
    services: { backend: { liveness: string; readiness: string; problem: string | null } };
  };
  const backend = document.services.backend;
  assert.equal([backend.liveness, backend.readiness], ['ok', 'ready'], String(backend.problem));
  assert.is(
    await stack.inspect<string[]>('frontend', '.Spec.TaskTemplate.ContainerSpec.Env').then(findUrl),
    'https://lb:3443',
  );
});

swarmTest('the device connects with its token over TLS through the load balancer to a TLS replica', async () => {
  assert.is(
    await stack.inspect<string[]>('device', '.Spec.TaskTemplate.ContainerSpec.Env').then(findUrl),
    'https://lb:3443',
  );
  const device = await stack.url('device', 3003);
  const ready = await waitFor(
    async () => {
      const body = (await (await fetch(`${device}/api/ready`)).json()) as { checks: { backend: string } };
      return body.checks.backend === 'connected' ? body : undefined;
    },
    { timeout: 20_000, interval: 200, what: 'device checks.backend = "connected"' },
  );
  assert.is(ready.checks.backend, 'connected');
});

swarmTest(`a draining TLS replica gets no request within ${LB_BOUND_MS} ms, and no request fails`, async () => {
  const { answers, address, signalledAt } = await drainOneReplica(stack);
  assert.is(failures(answers).length, 0, describeFailures(answers));
  const late = answers.filter((answer) => answer.address === address && answer.sentAt > signalledAt + LB_BOUND_MS);
  assert.is(late.length, 0, `${late.length} requests sent after the bound reached the draining replica`);
  console.log(`  ${answers.length} requests through TLS replicas, 0 failed`);
  await stack.converged(CONVERGE_MS);
});

test.run();
