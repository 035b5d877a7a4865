// deploy/swarm/stack.yaml read as data: compose.yaml's health checks, no routing mesh, two or more backend replicas
// updated start-first with rollback, and a load balancer that checks /api/ready. The stack on a real swarm:
// test/containers/swarm-*.container.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { root } from './support/spawn-service.ts';

interface Service {
  image: string;
  environment?: Record<string, string>;
  secrets?: { source: string; target: string }[];
  healthcheck?: Record<string, unknown>;
  ports?: { target: number; published: string; mode: string }[];
  stop_grace_period?: string;
  deploy: {
    replicas?: number;
    endpoint_mode: string;
    placement?: { constraints?: string[]; preferences?: { spread: string }[]; max_replicas_per_node?: number };
    restart_policy: { condition: string; delay: string };
    update_config?: Record<string, unknown>;
    rollback_config?: Record<string, unknown>;
  };
}

const test = suite('swarm stack file');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const stack = parse(read('deploy/swarm/stack.yaml')) as {
  services: Record<string, Service>;
  volumes: object;
  secrets: Record<string, { file: string }>;
};
const compose = parse(read('compose.yaml')) as { services: Record<string, { healthcheck: object }> };
const haproxy = read('deploy/swarm/lb/haproxy.cfg');

test('the five services, each with compose.yaml’s health check', () => {
  assert.equal(Object.keys(stack.services).sort(), ['backend', 'database', 'device', 'frontend', 'lb']);
  for (const name of ['database', 'backend', 'frontend', 'device', 'lb'])
    assert.equal(stack.services[name]!.healthcheck, compose.services[name]!.healthcheck, name);
});

test('no routing mesh: every service is dnsrr, every published port host-mode, from a variable', () => {
  for (const [name, service] of Object.entries(stack.services)) {
    assert.is(service.deploy.endpoint_mode, 'dnsrr', name);
    for (const port of service.ports ?? []) assert.is(port.mode, 'host', `${name}:${port.target}`);
  }
  const published = (name: string) => stack.services[name]!.ports!.map((p) => [p.target, p.published]);
  assert.equal(published('lb'), [[8443, '${BACKEND_PORT:-8443}']], 'the public backend port is the lb’s HTTPS one');
  assert.equal(published('frontend'), [[3000, '${FRONTEND_PORT:-3000}']]);
  assert.equal(published('device'), [[3003, '${DEVICE_PORT:-3003}']]);
  assert.is(stack.services.backend!.ports, undefined, 'the replicas are reached through the lb only');
});

test('images default to compose’s build names and follow the *_IMAGE variables', () => {
  const images = Object.fromEntries(Object.entries(stack.services).map(([name, s]) => [name, s.image]));
  assert.equal(images, {
    database: '${MONGO_IMAGE:-mongo:8.0}',
    backend: '${BACKEND_IMAGE:-service-health-kit-backend}',
    lb: '${LB_IMAGE:-service-health-kit-lb}',
    frontend: '${FRONTEND_IMAGE:-service-health-kit-frontend}',
    device: '${DEVICE_IMAGE:-service-health-kit-device}',
  });
});

test('the backend: 2 replicas, start-first one at a time, rollback on failure, a monitor window', () => {
  const { deploy } = stack.services.backend!;
  assert.ok(deploy.replicas! >= 2);
  assert.equal(deploy.update_config, {
    parallelism: 1,
    order: 'start-first',
    failure_action: 'rollback',
    monitor: '10s',
    max_failure_ratio: 0,
  });
  assert.equal(deploy.rollback_config, { ...deploy.update_config, failure_action: 'pause' });
});

test('one task per host port or volume: everything but the backend updates stop-first', () => {
  for (const name of ['database', 'lb', 'frontend', 'device'])
    assert.is(stack.services[name]!.deploy.update_config?.order, 'stop-first', name);
});

test('the database and the device are pinned to the node that has their volumes', () => {
  for (const name of ['database', 'device'])
    assert.equal(stack.services[name]!.deploy.placement?.constraints, ['${DATA_PLACEMENT:-node.role == manager}']);
});

test('on several nodes the backend replicas spread over them; the lb and the frontend stay on the edge node', () => {
  const backend = stack.services.backend!.deploy.placement;
  assert.equal(backend?.preferences, [{ spread: 'node.id' }]);
  // A cap of one per node would leave a start-first update's new task nowhere to run on two nodes.
  assert.is(backend?.max_replicas_per_node, undefined);
  assert.is(backend?.constraints, undefined);
  for (const name of ['lb', 'frontend'])
    assert.equal(stack.services[name]!.deploy.placement?.constraints, ['${EDGE_PLACEMENT:-node.role == manager}']);
});

test('the device: the emulator, a fixed DEVICE_ID, the token as a secret file, the backend through the lb', () => {
  const env = stack.services.device!.environment!;
  assert.is(env.NODE_ENV, 'local');
  assert.is(env.DEVICE_ID, '${DEVICE_ID:-device}');
  assert.is(env.DEVICE_TOKEN_FILE, '/run/secrets/device-token');
  assert.is(env.BACKEND_URL, 'http://lb:3001');
  assert.is(stack.services.backend!.environment!.DEVICE_TOKEN_FILE, '/run/secrets/device-token');
});

test('secrets are files under /run/secrets, named by *_FILE settings; no token or key in any environment', () => {
  const expected: Record<string, Record<string, string>> = {
    backend: { DEVICE_TOKEN_FILE: 'device-token', READ_TOKENS_FILE: 'read-tokens' },
    device: { DEVICE_TOKEN_FILE: 'device-token' },
    frontend: { BACKEND_READ_TOKEN_FILE: 'backend-read-token', OPERATOR_TOKENS_FILE: 'operator-tokens' },
    lb: { LB_TLS_CERT: 'backend-tls.pem' },
  };
  for (const [name, service] of Object.entries(stack.services)) {
    const env = service.environment ?? {};
    for (const key of Object.keys(env)) assert.not.match(key, /TOKEN$|TOKENS$|KEY$|PASSWORD/, `${name}: ${key} in env`);
    const targets = (service.secrets ?? []).map((secret) => secret.target);
    for (const [setting, file] of Object.entries(expected[name] ?? {})) {
      assert.is(env[setting], `/run/secrets/${file}`, `${name} ${setting}`);
      assert.ok(targets.includes(file), `${name} mounts ${file}: ${targets}`);
    }
  }
  assert.ok(
    stack.services.lb!.secrets!.some((secret) => secret.target === 'backend-tls.pem.key'),
    'the key beside',
  );
  for (const secret of Object.values(stack.secrets)) assert.match(secret.file, /^\$\{SECRETS_DIR:\?[^}]*\}\//);
});

test('the lb: HTTPS on 8443 (TLS 1.2+) when given a certificate, maxconn, and no head larger than Node takes', () => {
  assert.match(
    haproxy,
    /^\.if defined\(LB_TLS_CERT\)\n\s+bind :8443 ssl crt "\$\{LB_TLS_CERT\}" ssl-min-ver TLSv1\.2/m,
  );
  assert.match(haproxy, /^\s+maxconn 4096$/m);
  assert.match(haproxy, /^\s+maxconn 2000$/m);
  assert.match(haproxy, /http-request return status 431 .* if \{ req\.hdrs,length gt 16384 \}/);
});

test('the lb checks /api/ready on every replica it finds through Swarm’s DNS, for requests and sockets', () => {
  const pools = haproxy.split(/^backend /m).slice(1);
  assert.is(pools.length, 2);
  for (const pool of pools) {
    assert.match(pool, /http-check send meth GET uri \/api\/ready /);
    assert.match(pool, /http-check expect status 200/);
    assert.match(pool, /server-template backend \d+ backend:3001/);
  }
  assert.match(haproxy, /default-server .*resolvers swarm .*check inter 500ms fall 2 rise 1/);
  assert.match(haproxy, /use_backend device-sockets if \{ path \/api\/device\/socket \}/);
  // New device sockets only where the device path keeps up; reads go on to a replica that is behind.
  assert.match(pools[1]!, /http-check send meth GET uri \/api\/ready\/devices /);
  assert.not.match(pools[0]!, /api\/ready\/devices/);
});

test('internal-tls.yaml: replicas serve TLS from secrets, both lb pools verify them, clients use the lb’s TLS', () => {
  const overlay = parse(read('deploy/swarm/internal-tls.yaml')) as { services: Record<string, Partial<Service>> };
  const env = (name: string) => overlay.services[name]!.environment!;
  assert.equal(env('backend'), {
    TLS_CERT_FILE: '/run/secrets/internal-tls.pem',
    TLS_KEY_FILE: '/run/secrets/internal-tls.pem.key',
  });
  assert.is(env('lb').LB_BACKEND_CA, '/run/secrets/internal-ca.pem');
  assert.equal([env('frontend').BACKEND_URL, env('device').BACKEND_URL], ['https://lb:3443', 'https://lb:3443']);
  assert.is(env('device').BACKEND_CA_FILE, '/run/secrets/internal-ca.pem');
  assert.is(env('frontend').NODE_EXTRA_CA_CERTS, '/run/secrets/internal-ca.pem');
  // Every secret mounted is named by a setting, but a key, which the lb and Node find beside its certificate.
  for (const [name, service] of Object.entries(overlay.services))
    for (const { target } of service.secrets ?? [])
      assert.ok(
        Object.values(env(name)).includes(`/run/secrets/${target}`) || target.endsWith('.key'),
        `${name}: ${target}`,
      );
  const verify = new RegExp(
    String.raw`^\.if defined\(LB_BACKEND_CA\)\n\s+default-server ssl verify required ` +
      String.raw`ca-file "\$\{LB_BACKEND_CA\}" verifyhost backend\n\.endif$`,
    'm',
  );
  for (const pool of haproxy.split(/^backend /m).slice(1)) assert.match(pool, verify);
  assert.match(
    haproxy,
    /^\.if defined\(LB_INTERNAL_CERT\)\n.*\n\s+bind :3443 ssl crt "\$\{LB_INTERNAL_CERT\}" ssl-min-ver TLSv1\.2/m,
  );
});

test.run();
