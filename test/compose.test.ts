// compose.yaml and the cloud override: valid against the Compose Specification schema, every value of the
// contract's health-check table, the start-up order derived from depends_on, and the start-up arithmetic
// (docs/contract.md#container-health-checks, #start-up-order).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { parse } from 'yaml';
import { loadComposeSchema } from './infra/compose-schema.ts';
import { parseDockerfile, targetSteps, type Step } from './infra/dockerfile-stages.ts';
import { root } from './infra/compile-healthcheck.ts';

interface Healthcheck {
  test: string[];
  interval: string;
  timeout: string;
  retries: number;
  start_period: string;
  start_interval?: string;
}
interface ComposeService {
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: Healthcheck;
  restart?: string;
  image?: string;
  build?: { context: string; target: string; args?: Record<string, string> };
  stop_grace_period?: string;
  devices?: string[];
  volumes?: string[];
}
interface Compose {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

const read = (name: string) => readFileSync(join(root, name), 'utf8');
const compose = parse(read('compose.yaml')) as Compose;
// Compose's `!reset` (2.24+) drops what compose.yaml set; read as the value it resets to (null, or an empty list).
const RESET = [
  { tag: '!reset', resolve: () => null },
  { tag: '!reset', collection: 'seq' as const, resolve: (seq: unknown) => seq },
];
const cloud = parse(read('compose.cloud.yaml'), { customTags: RESET }) as Compose & {
  secrets: Record<string, { file: string }>;
};
const checkSchema = loadComposeSchema();
const service = (name: string): ComposeService => {
  const found = compose.services[name];
  if (!found) throw new Error(`compose.yaml has no service "${name}"`);
  return found;
};
const seconds = (duration: string) => {
  const match = /^(\d+(?:\.\d+)?)s$/.exec(duration);
  if (!match) throw new Error(`expected a duration in seconds, got ${duration}`);
  return Number(match[1]);
};

/** The services `docker compose up` starts (no profile), in an order where each comes after what it waits for. */
function startOrder(services: Record<string, ComposeService>): string[] {
  const names = Object.keys(services).filter((name) => !services[name]!.profiles);
  const order: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (order.includes(name)) return;
    if (path.includes(name)) throw new Error(`depends_on cycle: ${[...path, name].join(' → ')}`);
    for (const dependency of Object.keys(services[name]?.depends_on ?? {})) visit(dependency, [...path, name]);
    order.push(name);
  };
  for (const name of names.sort()) visit(name, []);
  return order;
}

// The contract's health-check table (docs/contract.md#container-health-checks), row by row; `test` is what each
// check runs.
const CONTRACT_TABLE = {
  database: { interval: '30s', timeout: '10s', retries: 3, start_period: '60s' },
  backend: { interval: '30s', timeout: '10s', retries: 3, start_period: '60s' },
  frontend: { interval: '30s', timeout: '10s', retries: 3, start_period: '40s' },
} as const;

test('compose.yaml and compose.cloud.yaml are valid Compose files (Compose Specification JSON schema)', () => {
  assert.equal(checkSchema(compose), []);
  assert.equal(checkSchema(cloud), []);
});

test('the schema check is real: a misspelt health-check key and a wrong type are rejected', () => {
  const broken = structuredClone(compose);
  (broken.services.backend!.healthcheck as unknown as Record<string, unknown>).start_intervall = '2s';
  (broken.services.frontend as unknown as Record<string, unknown>).ports = '3000:3000';
  const errors = checkSchema(broken);
  assert.ok(
    errors.some((e) => e.includes('/services/backend/healthcheck') && e.includes('start_intervall')),
    errors.join('\n'),
  );
  assert.ok(
    errors.some((e) => e.includes('/services/frontend/ports')),
    errors.join('\n'),
  );
});

test('every value of the contract table: interval, timeout, retries, start_period', () => {
  for (const [name, expected] of Object.entries(CONTRACT_TABLE)) {
    const { interval, timeout, retries, start_period } = service(name).healthcheck!;
    assert.equal({ interval, timeout, retries, start_period }, expected, name);
  }
});

test('the checks themselves: mongosh ping, the compiled health-check script, a quiet curl -f on port 3000', () => {
  const database = service('database').healthcheck!.test;
  assert.equal(database.slice(0, 2), ['CMD', 'mongosh']);
  const script = database[database.indexOf('--eval') + 1] ?? '';
  assert.match(script, /db\.adminCommand\('ping'\)/);
  new Script(script); // the mongosh expression is valid JavaScript
  assert.equal(service('backend').healthcheck!.test, ['CMD', 'node', '/app/healthcheck.cjs']);
  assert.equal(service('frontend').healthcheck!.test, [
    'CMD',
    'curl',
    '-fsS',
    '-o',
    '/dev/null',
    'http://localhost:3000',
  ]);
});

test(
  'images: MONGO_IMAGE defaults to the official mongo, pinned; ' +
    'NODE_IMAGE reaches the build as the Dockerfile default; RELEASE_ID as the release, dev by default',
  () => {
    assert.match(service('database').image ?? '', /^\$\{MONGO_IMAGE:-mongo:\d+(\.\d+)*\}$/);
    const dockerfileDefault = parseDockerfile(read('Dockerfile')).globalArgs.NODE_IMAGE;
    for (const name of ['backend', 'frontend', 'device', 'device-serial']) {
      assert.equal(
        service(name).build?.args,
        { NODE_IMAGE: `\${NODE_IMAGE:-${dockerfileDefault}}`, RELEASE_ID: '${RELEASE_ID:-dev}' },
        name,
      );
    }
  },
);

test('the health checks match the images: same command and values as the Dockerfile HEALTHCHECK', () => {
  const dockerfile = parseDockerfile(read('Dockerfile'));
  for (const name of ['backend', 'frontend', 'device']) {
    // The one a container runs: the last in build order, its own or one inherited from a stage it is built on.
    const step = targetSteps(dockerfile, name).findLast((s: Step) => s.keyword === 'HEALTHCHECK');
    const check = service(name).healthcheck!;
    assert.equal(['CMD', ...(step?.exec ?? [])], check.test, `${name} test`);
    assert.equal(
      {
        interval: step?.flags.interval,
        timeout: step?.flags.timeout,
        retries: Number(step?.flags.retries),
        start_period: step?.flags['start-period'],
        start_interval: step?.flags['start-interval'],
      },
      {
        interval: check.interval,
        timeout: check.timeout,
        retries: check.retries,
        start_period: check.start_period,
        start_interval: check.start_interval,
      },
      `${name} values`,
    );
    assert.is(service(name).build?.target, name);
  }
});

test(
  'start-up order derived from depends_on is database → backend → frontend, ' + 'each waiting for service_healthy',
  () => {
    assert.equal(startOrder(compose.services), ['database', 'backend', 'frontend']);
    assert.is(service('database').depends_on, undefined, 'the database waits for nothing');
    assert.equal(service('backend').depends_on, { database: { condition: 'service_healthy' } });
    assert.equal(service('frontend').depends_on, { backend: { condition: 'service_healthy' } });
  },
);

test('unhealthy or crashed containers come back: restart unless-stopped everywhere', () => {
  for (const [name, s] of Object.entries(compose.services)) assert.is(s.restart, 'unless-stopped', name);
});

test('start_interval is set and shorter than the interval on every check', () => {
  for (const [name, s] of Object.entries(compose.services)) {
    const check = s.healthcheck!;
    assert.ok(check.start_interval, `${name} has start_interval`);
    assert.ok(
      seconds(check.start_interval!) < seconds(check.interval),
      `${name}: ${check.start_interval} < ${check.interval}`,
    );
  }
});

test('the start-up arithmetic (docs/start-up.md) is what these values give', () => {
  const order = startOrder(compose.services);
  const sum = (f: (check: Healthcheck) => number) =>
    order.reduce((total, name) => total + f(service(name).healthcheck!), 0);
  const startPeriods = sum((c) => seconds(c.start_period)); // healthy only when each start period ends
  const firstProbes = sum((c) => seconds(c.interval)); // Docker before 25: first probe one interval after start
  const defaultStartInterval = order.length * 5; // Docker 25+: start_interval unset means 5 s
  const withStartInterval = sum((c) => seconds(c.start_interval!));
  assert.equal([startPeriods, firstProbes, defaultStartInterval, withStartInterval], [160, 90, 15, 1.5]);
});

test('the backend reaches the database and the frontend the backend by service name', () => {
  assert.match(service('backend').environment?.MONGODB_URI ?? '', /^mongodb:\/\/database:27017\/\w/);
  assert.is(service('frontend').environment?.BACKEND_URL, 'http://backend:3001');
  for (const name of ['device', 'device-serial'])
    assert.is(service(name).environment?.BACKEND_URL, 'http://backend:3001');
});

test('every environment variable set in compose.yaml is one the service reads', () => {
  const sources: Record<string, string[]> = {
    database: [],
    backend: ['backend/config.ts', 'lib/env.ts', 'lib/device-token.ts'],
    frontend: ['frontend/config.ts', 'lib/env.ts'],
    device: ['device/config.ts', 'lib/env.ts', 'lib/device-token.ts'],
    'device-serial': ['device/config.ts', 'lib/env.ts', 'lib/device-token.ts'],
  };
  for (const [name, s] of Object.entries(compose.services)) {
    const code = (sources[name] ?? []).map(read).join('\n');
    for (const key of Object.keys(s.environment ?? {}))
      assert.ok(code.includes(`'${key}'`), `${name} sets ${key}, which its code never reads`);
  }
});

test(
  'the device token comes from the environment for backend and device alike, ' +
    'never from the file, and is not required',
  () => {
    const raw = read('compose.yaml');
    for (const name of ['backend', 'device', 'device-serial'])
      assert.is(service(name).environment?.DEVICE_TOKEN, '${DEVICE_TOKEN:-}', name);
    assert.is(service('frontend').environment?.DEVICE_TOKEN, undefined);
    // `${DEVICE_TOKEN:?…}` would fail every `docker compose up` without it, profiles or not.
    assert.not.match(raw, /DEVICE_TOKEN:\?/);
  },
);

test("graceful shutdown has room: stop_grace_period above the services' 10 s exit limit", () => {
  for (const name of ['backend', 'frontend', 'device', 'device-serial']) {
    assert.ok(seconds(service(name).stop_grace_period ?? '10s') > 10, name);
  }
});

test("each device service has a fixed DEVICE_ID: a recreated container's host name, the default, would be new", () => {
  assert.is(service('device').environment?.DEVICE_ID, '${DEVICE_ID:-device}');
  assert.is(service('device-serial').environment?.DEVICE_ID, '${DEVICE_ID:-device-serial}');
});

test('the device service is optional: a profile for the emulator, another for a passed-through serial device', () => {
  assert.equal(service('device').profiles, ['device']);
  assert.is(service('device').environment?.NODE_ENV, 'local');
  const serial = service('device-serial');
  assert.equal(serial.profiles, ['device-serial']);
  assert.is(serial.environment?.NODE_ENV, 'production');
  assert.is(serial.environment?.SERIAL_PATH, '/dev/ttyUSB0');
  assert.ok(
    serial.devices?.some((d) => d.endsWith(':/dev/ttyUSB0')),
    'the host device is passed through',
  );
});

test("each device service keeps its spool in a named volume of its own, at the image's /app/spool", () => {
  const dockerfile = parseDockerfile(read('Dockerfile'));
  const imageVolumes = targetSteps(dockerfile, 'device')
    .filter((s: Step) => s.keyword === 'VOLUME')
    .flatMap((s: Step) => s.args);
  assert.equal(imageVolumes, ['/app/spool']);
  const named = ['device', 'device-serial'].map((name) => {
    const mounts = service(name).volumes ?? [];
    assert.is(mounts.length, 1, name);
    const [volume, target] = mounts[0]!.split(':');
    assert.is(target, '/app/spool', name);
    assert.ok(volume && volume in (compose.volumes ?? {}), `${name}: ${volume} is a named volume`);
    return volume;
  });
  assert.is(new Set(named).size, 2, 'not shared');
  for (const name of ['backend', 'frontend']) assert.is(service(name).volumes, undefined, name);
});

test(
  'local ports on loopback only (3000/3001/3003 unless FRONTEND_PORT/BACKEND_PORT/DEVICE_PORT say otherwise); ' +
    'the cloud override publishes the lb’s HTTPS 8443 (not the backend), frontend 80 and its HTTPS on 443',
  () => {
    // The management port (/metrics) on loopback too, at a free port unless BACKEND_METRICS_PORT names one.
    assert.equal(service('backend').ports, [
      '127.0.0.1:${BACKEND_PORT:-3001}:3001',
      '127.0.0.1:${BACKEND_METRICS_PORT:-0}:9464',
    ]);
    assert.equal(service('frontend').ports, [
      '127.0.0.1:${FRONTEND_PORT:-3000}:3000',
      '127.0.0.1:${FRONTEND_METRICS_PORT:-0}:9466',
    ]);
    assert.equal(service('device').ports, ['127.0.0.1:${DEVICE_PORT:-3003}:3003']);
    assert.equal(service('device-serial').ports, ['127.0.0.1:${DEVICE_PORT:-3003}:3003']);
    assert.equal(Object.keys(cloud.services).sort(), ['backend', 'device', 'device-serial', 'frontend', 'lb']);
    // The backend publishes only compose.yaml's loopback port, for the runner-local post-deploy smoke.
    assert.is(cloud.services.backend?.ports, undefined);
    assert.equal(cloud.services.lb?.ports, ['${PUBLIC_BACKEND_PORT:-8443}:8443']);
    assert.equal(cloud.services.frontend?.ports, [
      '${PUBLIC_FRONTEND_PORT:-80}:3000',
      '${PUBLIC_FRONTEND_HTTPS_PORT:-443}:3443',
    ]);
  },
);

test('the cloud override passes every token and the TLS key as secret files, none in the environment', () => {
  const files: Record<string, Record<string, string | null>> = {
    backend: {
      DEVICE_TOKEN: null,
      DEVICE_TOKEN_FILE: '/run/secrets/device-token',
      READ_TOKENS_FILE: '/run/secrets/read-tokens',
    },
    device: { DEVICE_TOKEN: null, DEVICE_TOKEN_FILE: '/run/secrets/device-token' },
    'device-serial': { DEVICE_TOKEN: null, DEVICE_TOKEN_FILE: '/run/secrets/device-token' },
    frontend: {
      BACKEND_READ_TOKEN_FILE: '/run/secrets/backend-read-token',
      OPERATOR_TOKENS_FILE: '/run/secrets/operator-tokens',
      HTTPS_PORT: '3443',
      HTTPS_PUBLISHED_PORT: '${PUBLIC_FRONTEND_HTTPS_PORT:-443}',
      TLS_CERT_FILE: '/run/secrets/frontend-tls.pem',
      TLS_KEY_FILE: '/run/secrets/frontend-tls.pem.key',
    },
    lb: { LB_TLS_CERT: '/run/secrets/backend-tls.pem' },
  };
  for (const [name, env] of Object.entries(files)) {
    const service = cloud.services[name] as ComposeService & { secrets: { target: string }[] };
    assert.equal(service.environment, env, name);
    const targets = service.secrets.map((secret) => secret.target);
    for (const path of Object.values(env))
      if (path?.startsWith('/run/secrets/'))
        assert.ok(targets.includes(path.replace('/run/secrets/', '')), `${name}: ${path}`);
  }
  for (const secret of Object.values(cloud.secrets)) assert.match(secret.file, /^\$\{SECRETS_DIR:\?[^}]*\}\//);
});

test.run();
