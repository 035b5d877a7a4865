// deploy/k8s: every manifest valid against the Kubernetes schemas (kubernetes-models), probes on the right
// paths, shutdown timing that fits SHUTDOWN_DELAY_MS, resources, a restricted security context, MongoDB from a Secret,
// the device and read tokens from Secrets mounted as files.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Namespace, Service } from 'kubernetes-models/v1';
import type { IContainer, IProbe, IVolume } from 'kubernetes-models/v1';
import { root } from './infra/compile-healthcheck.ts';
import { volumeHolding } from './support/pod-volume.ts';

const dir = join(root, 'deploy', 'k8s');
const read = (name: string) => readFileSync(join(dir, name), 'utf8');

interface Kustomization {
  namespace: string;
  resources: string[];
  images: { name: string; newTag?: string; newName?: string }[];
}
const kustomization = parseAllDocuments(read('kustomization.yaml'))[0]!.toJS() as Kustomization;

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
} & Record<string, any>;
const manifests: Manifest[] = kustomization.resources.flatMap((file) =>
  parseAllDocuments(read(file)).map((d) => d.toJS() as Manifest),
);

const MODELS = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/Namespace': Namespace,
} as const;

function validate(manifest: Manifest): void {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}` as keyof typeof MODELS];
  if (!Model) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}`);
  new Model(manifest as never).validate();
}

const deployments = manifests.filter((m) => m.kind === 'Deployment');
const deployment = (name: string) => {
  const found = deployments.find((d) => d.metadata.name === name);
  if (!found) throw new Error(`no Deployment ${name}`);
  return found;
};
const container = (name: string): IContainer => deployment(name).spec.template.spec.containers[0];
const env = (name: string) =>
  Object.fromEntries((container(name).env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));
const SERVICES = { backend: 3001, device: 3003, frontend: 3000 } as const;

test('the kustomization lists every manifest in deploy/k8s, and each is valid against the Kubernetes schema', () => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .sort();
  assert.equal([...kustomization.resources].sort(), files);
  assert.is(kustomization.namespace, 'service-health-kit');
  assert.equal(manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort(), [
    'Deployment/backend',
    'Deployment/device',
    'Deployment/frontend',
    'Namespace/service-health-kit',
    'Service/backend',
    'Service/device',
    'Service/frontend',
  ]);
  for (const manifest of manifests) validate(manifest);
});

test(
  'the schema check is real: ' + 'a string where an integer belongs, and a Deployment without containers, are rejected',
  () => {
    const wrongType = structuredClone(deployment('backend'));
    wrongType.spec.template.spec.containers[0].livenessProbe.periodSeconds = '30s';
    assert.throws(() => validate(wrongType), /periodSeconds must be integer/);
    const noContainers = structuredClone(deployment('frontend'));
    delete noContainers.spec.template.spec.containers;
    assert.throws(() => validate(noContainers), /containers/);
  },
);

test("each Service selects its Deployment's pods and targets the named container port", () => {
  for (const [name, port] of Object.entries(SERVICES)) {
    const service = manifests.find((m) => m.kind === 'Service' && m.metadata.name === name)!;
    const pods = deployment(name).spec.template.metadata.labels as Record<string, string>;
    for (const [key, value] of Object.entries(service.spec.selector as Record<string, string>))
      assert.is(pods[key], value, `${name} selector ${key}`);
    assert.equal(deployment(name).spec.selector.matchLabels, service.spec.selector);
    assert.equal(container(name).ports![0], { name: 'http', containerPort: port });
    // Besides http, only the backend's and the frontend's management ports, which no Service targets.
    const others = container(name).ports!.slice(1);
    const management = {
      backend: [{ name: 'metrics', containerPort: 9464 }],
      frontend: [{ name: 'metrics', containerPort: 9466 }],
    };
    assert.equal(others, management[name as keyof typeof management] ?? []);
    assert.equal(
      service.spec.ports.map((p: { targetPort: string }) => p.targetPort),
      ['http'],
    );
  }
});

test('probes: liveness → /api/health, readiness → /api/ready (frontend: GET /), all on the http port', () => {
  const paths = (probe: IProbe | undefined) => [probe?.httpGet?.path, probe?.httpGet?.port];
  for (const name of ['backend', 'device']) {
    assert.equal(paths(container(name).livenessProbe), ['/api/health', 'http'], `${name} liveness`);
    assert.equal(paths(container(name).readinessProbe), ['/api/ready', 'http'], `${name} readiness`);
    assert.equal(paths(container(name).startupProbe), ['/api/health', 'http'], `${name} startup`);
  }
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
    assert.equal(paths(container('frontend')[probe]), ['/', 'http'], `frontend ${probe}`);
  }
});

test('liveness uses the contract values; the startup probe covers the start period (60 s, frontend 40 s)', () => {
  const startPeriod = { backend: 60, device: 60, frontend: 40 };
  for (const [name, seconds] of Object.entries(startPeriod)) {
    const { periodSeconds, timeoutSeconds, failureThreshold } = container(name).livenessProbe!;
    assert.equal(
      { periodSeconds, timeoutSeconds, failureThreshold },
      { periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 3 },
      name,
    );
    const startup = container(name).startupProbe!;
    assert.is(startup.periodSeconds! * startup.failureThreshold!, seconds, `${name} startup window`);
    assert.ok(startup.periodSeconds! < 30, `${name}: polls faster than the liveness interval while starting`);
  }
});

test(
  'shutdown fits: a readiness probe sees the 503 within SHUTDOWN_DELAY_MS, ' + 'and the grace period outlasts the exit',
  () => {
    // Settings compared with settings, in seconds as Kubernetes counts them: nothing here is timed.
    const EXIT_LIMIT_SECONDS = 10; // the services exit within 10 s of SIGTERM, delay included
    for (const name of ['backend', 'device']) {
      const delaySeconds = Number(env(name).SHUTDOWN_DELAY_MS) / 1000;
      const readiness = container(name).readinessProbe!;
      assert.ok(
        delaySeconds >= readiness.periodSeconds! * readiness.failureThreshold!,
        `${name}: delay ${delaySeconds} s covers a readiness probe`,
      );
      assert.ok(delaySeconds < EXIT_LIMIT_SECONDS, `${name}: delay leaves time to drain`);
      const graceSeconds = deployment(name).spec.template.spec.terminationGracePeriodSeconds;
      assert.ok(graceSeconds > EXIT_LIMIT_SECONDS, `${name}: grace ${graceSeconds} s > ${EXIT_LIMIT_SECONDS} s`);
    }
    const statusTimeoutSeconds = Number(env('frontend').STATUS_TIMEOUT_MS ?? 1500) / 1000;
    assert.ok(deployment('frontend').spec.template.spec.terminationGracePeriodSeconds > statusTimeoutSeconds + 5);
  },
);

test('resources: cpu and memory requests and limits on every container', () => {
  for (const name of Object.keys(SERVICES)) {
    const { requests, limits } = container(name).resources ?? {};
    for (const key of ['cpu', 'memory']) {
      assert.ok(requests?.[key] && limits?.[key], `${name} ${key} request and limit`);
    }
  }
});

test('non-root, read-only, no privileges: a pod the restricted Pod Security level admits', () => {
  const namespace = manifests.find((m) => m.kind === 'Namespace')!;
  assert.is(namespace.metadata.labels?.['pod-security.kubernetes.io/enforce'], 'restricted');
  for (const name of Object.keys(SERVICES)) {
    const pod = deployment(name).spec.template.spec;
    assert.equal(
      pod.securityContext,
      { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
      name,
    );
    assert.equal(
      container(name).securityContext,
      { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
      name,
    );
    assert.is(pod.automountServiceAccountToken, false);
    // tsx writes its cache under /tmp, so a read-only root needs a writable /tmp; the device its spool too.
    const spool = name === 'device' ? [{ name: 'spool', mountPath: '/app/spool' }] : [];
    const secrets = {
      backend: ['mongodb', 'device-token', 'read-tokens'],
      device: ['device-token'],
      frontend: ['backend-read-token'],
    };
    const tokens = secrets[name as keyof typeof SERVICES].map((secret) => ({
      name: secret,
      mountPath: `/run/secrets/${secret}`,
      readOnly: true,
    }));
    assert.equal(container(name).volumeMounts, [...tokens, { name: 'tmp', mountPath: '/tmp' }, ...spool]);
    for (const { name: volume } of container(name).volumeMounts as Array<{ name: string }>) {
      if (volume !== 'tmp' && volume !== 'spool') continue; // Secrets, read-only (below)
      assert.ok(pod.volumes.some((v: { name: string; emptyDir?: unknown }) => v.name === volume && v.emptyDir));
    }
  }
  // uid 1000 is the `node` user the Dockerfile switches to.
  assert.match(readFileSync(join(root, 'Dockerfile'), 'utf8'), /^USER node$/m);
});

test('MongoDB is external: the connection string comes from a Secret, never from a manifest', () => {
  // As a file, like the tokens: the URI may carry a password, which must not sit in the pod's environment.
  assert.is(env('backend').MONGODB_URI, undefined);
  assert.is(env('backend').MONGODB_URI_FILE, '/run/secrets/mongodb/MONGODB_URI');
  const volumes = deployment('backend').spec.template.spec.volumes as Array<{ name: string; secret?: unknown }>;
  assert.equal(volumes.find((v) => v.name === 'mongodb')?.secret, { secretName: 'mongodb', defaultMode: 0o444 });
  for (const file of kustomization.resources) assert.not.match(read(file), /mongodb(\+srv)?:\/\//, file);
});

test('the device token is one Secret shared by backend and device, mounted as a file, in no environment', () => {
  for (const name of ['backend', 'device']) {
    assert.is(env(name).DEVICE_TOKEN, undefined, name);
    assert.is(env(name).DEVICE_TOKEN_FILE, '/run/secrets/device-token/DEVICE_TOKEN', name);
    const volumes = deployment(name).spec.template.spec.volumes as Array<{ name: string; secret?: unknown }>;
    assert.equal(volumes.find((v) => v.name === 'device-token')?.secret, {
      secretName: 'device-token',
      defaultMode: 0o444,
    });
  }
  assert.is(env('frontend').DEVICE_TOKEN, undefined);
});

test("read tokens as files: the backend's from the Secret read-tokens, the frontend's own from another", () => {
  const tokenEnv = (name: string) =>
    Object.fromEntries(Object.entries(env(name)).filter(([setting]) => /TOKEN/.test(setting)));
  // Every token setting is a path: no token value, and no secretKeyRef, in any pod's environment.
  assert.equal(
    { backend: tokenEnv('backend'), device: tokenEnv('device'), frontend: tokenEnv('frontend') },
    {
      backend: {
        DEVICE_TOKEN_FILE: '/run/secrets/device-token/DEVICE_TOKEN',
        READ_TOKENS_FILE: '/run/secrets/read-tokens/READ_TOKENS',
      },
      device: { DEVICE_TOKEN_FILE: '/run/secrets/device-token/DEVICE_TOKEN' },
      frontend: { BACKEND_READ_TOKEN_FILE: '/run/secrets/backend-read-token/BACKEND_READ_TOKEN' },
    },
  );
  const files = [
    ['backend', 'READ_TOKENS_FILE', 'read-tokens'],
    ['frontend', 'BACKEND_READ_TOKEN_FILE', 'backend-read-token'],
  ] as const;
  for (const [name, setting, secretName] of files) {
    const volume = volumeHolding(deployment(name).spec.template.spec, String(env(name)[setting]), `${name} ${setting}`);
    assert.equal(volume.secret, { secretName, defaultMode: 0o444 }, `${name} ${setting}`);
  }
  // The frontend holds its own read token only, never the other readers' (the Secret read-tokens).
  const frontendSecrets = (deployment('frontend').spec.template.spec.volumes as IVolume[]).flatMap((v) =>
    v.secret ? [v.secret.secretName] : [],
  );
  assert.equal(frontendSecrets, ['backend-read-token']);
});

test('images come from the kustomization, and each service runs its own image', () => {
  const names = kustomization.images.map((i) => i.name);
  for (const name of Object.keys(SERVICES)) {
    assert.is(container(name).image, `service-health-kit/${name}`);
    assert.ok(names.includes(`service-health-kit/${name}`), `${name} image has a tag in the kustomization`);
  }
});

test("the device has a fixed DEVICE_ID: the default, the host name, is the pod's name, new with every rollout", () => {
  assert.is(env('device').DEVICE_ID, 'device');
});

test('the services find each other by Service name', () => {
  assert.is(env('device').BACKEND_URL, 'http://backend:3001');
  assert.is(env('frontend').BACKEND_URL, 'http://backend:3001');
  assert.is(env('frontend').DEVICE_URL, 'http://device:3003');
  assert.is(env('device').NODE_ENV, 'local', 'the emulator: no USB device on a cluster node');
});

test('every pod asks to be scraped at /metrics (backend and frontend on their management ports)', () => {
  for (const name of ['backend', 'device', 'frontend']) {
    const annotations = deployment(name).spec.template.metadata.annotations as Record<string, string>;
    // The device runs in local mode here, which keeps /metrics on its main port.
    const portName = name === 'device' ? 'http' : 'metrics';
    const port = container(name).ports!.find((p) => p.name === portName)!.containerPort;
    assert.equal(annotations, {
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(port),
      'prometheus.io/path': '/metrics',
    });
    assert.not.ok(env(name).METRICS, `${name} keeps METRICS on`);
  }
  assert.is(container('frontend').ports!.find((p) => p.name === 'metrics')!.containerPort, 9466);
});

test.run();
