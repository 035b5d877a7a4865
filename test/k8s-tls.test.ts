// deploy/k8s/components/tls, built as deploy/k8s-tls builds it: every hop with a secret over TLS, the backend's
// certificate and key and the frontend's from Secrets mounted as files, the frontend's HTTPS port beside the plain one
// with the operators' sign-in tokens.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Namespace, Service } from 'kubernetes-models/v1';
import type { IContainer, IVolume } from 'kubernetes-models/v1';
import { root } from './support/spawn-service.ts';
import { kustomizeBuild, readKustomization, type Manifest } from './support/kustomize-build.ts';
import { volumeHolding } from './support/pod-volume.ts';

const COMPONENT = join(root, 'deploy', 'k8s', 'components', 'tls');
const base = kustomizeBuild(join(root, 'deploy', 'k8s'));
const built = kustomizeBuild(join(root, 'deploy', 'k8s-tls'));

const MODELS = { 'apps/v1/Deployment': Deployment, 'v1/Service': Service, 'v1/Namespace': Namespace } as const;
const find = (kind: string, name: string) => {
  const found = built.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const pod = (name: string) => find('Deployment', name).spec.template.spec;
const container = (name: string): IContainer => pod(name).containers[0];
const env = (name: string) => Object.fromEntries((container(name).env ?? []).map((e) => [e.name, e.value]));

test('the overlay is the base with the component, every manifest valid; the base itself stays plain', () => {
  assert.equal(readKustomization(COMPONENT).kind, 'Component');
  assert.equal(readKustomization(join(root, 'deploy', 'k8s-tls')).components, ['../k8s/components/tls']);
  assert.not.ok(readKustomization(join(root, 'deploy', 'k8s')).components, 'opt-in: the base names no component');
  const names = (list: Manifest[]) => list.map((m) => `${m.kind}/${m.metadata.name}`);
  assert.equal(names(built), names(base));
  const changed = built.filter((m, i) => JSON.stringify(m) !== JSON.stringify(base[i]));
  assert.equal(names(changed), ['Deployment/backend', 'Deployment/device', 'Deployment/frontend', 'Service/frontend']);
  for (const manifest of built) {
    const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}` as keyof typeof MODELS];
    new Model(manifest as never).validate();
  }
});

test('backend and frontend serve TLS from their own Secret, mounted read-only and named by TLS_*_FILE', () => {
  for (const name of ['backend', 'frontend']) {
    const files = [env(name).TLS_CERT_FILE, env(name).TLS_KEY_FILE];
    assert.equal(files, [`/run/secrets/${name}-tls/tls.crt`, `/run/secrets/${name}-tls/tls.key`], name);
    // kubernetes.io/tls keys; 0444 as the device token's, since the container runs as uid 1000, not as the owner.
    for (const file of files)
      assert.equal(
        volumeHolding(pod(name), file!, name).secret,
        { secretName: `${name}-tls`, defaultMode: 0o444 },
        file,
      );
  }
  assert.not.ok(env('device').TLS_CERT_FILE, "the device's own port stays plain: no secret is sent to it");
});

test("the backend's probes speak HTTPS on its port; /metrics stays plain on the management port", () => {
  for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) {
    assert.equal(container('backend')[probe]?.httpGet?.scheme, 'HTTPS', probe);
    assert.is(container('backend')[probe]?.httpGet?.port, 'http', probe);
  }
  const annotations = find('Deployment', 'backend').spec.template.metadata.annotations;
  assert.equal(
    annotations,
    base.find((m) => m.metadata.name === 'backend' && m.kind === 'Deployment')!.spec.template.metadata.annotations,
  );
  assert.ok(container('backend').ports?.some((p) => p.name === 'metrics' && p.containerPort === 9464));
  assert.is(annotations['prometheus.io/port'], '9464');
  for (const service of built.filter((m) => m.kind === 'Service'))
    for (const port of service.spec.ports) assert.is.not(port.targetPort, 'metrics', service.metadata.name);
});

test('the frontend keeps PORT plain, its probes there, and serves HTTPS on 3443, published on 443', () => {
  const ports = Object.fromEntries(container('frontend').ports!.map((p) => [p.name, p.containerPort]));
  const https = Number(env('frontend').HTTPS_PORT);
  assert.equal(ports, { http: Number(env('frontend').PORT), metrics: 9466, https });
  assert.is(ports.https, 3443);
  for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) {
    assert.is(container('frontend')[probe]?.httpGet?.port, 'http', probe);
    assert.is(container('frontend')[probe]?.httpGet?.scheme, undefined, `${probe}: plain HTTP, as curl's check`);
  }
  assert.equal(find('Service', 'frontend').spec.ports, [
    { name: 'http', port: 80, targetPort: 'http' },
    { name: 'https', port: 443, targetPort: 'https' },
  ]);
  assert.is(env('frontend').HTTPS_PUBLISHED_PORT, '443', 'the refusal of a plain sign-in names the published port');
});

test('device and frontend reach the backend by https://, trusting its CA (a ConfigMap), not holding its key', () => {
  const backendPort = find('Service', 'backend').spec.ports[0].port;
  const caSetting = { device: 'BACKEND_CA_FILE', frontend: 'NODE_EXTRA_CA_CERTS' };
  for (const [name, setting] of Object.entries(caSetting)) {
    assert.is(env(name).BACKEND_URL, `https://backend:${backendPort}`, name);
    assert.equal(
      volumeHolding(pod(name), env(name)[setting]!, name).configMap,
      { name: 'backend-ca', defaultMode: 0o444 },
      name,
    );
    const secrets = (pod(name).volumes as IVolume[]).flatMap((v) => (v.secret ? [v.secret.secretName] : []));
    assert.not.ok(secrets.includes('backend-tls'), `${name} never mounts the backend's key`);
  }
});

test('operators sign in with the Secret operator-tokens, beside HTTPS; each pod holds only its Secrets', () => {
  // In the component and not in the base: sign-in needs the HTTPS port, which only the component serves.
  const frontendEnv = (list: Manifest[]) =>
    list.find((m) => m.kind === 'Deployment' && m.metadata.name === 'frontend')!.spec.template.spec.containers[0]
      .env as { name: string }[];
  const inBaseAndBuilt = [base, built].map((list) => frontendEnv(list).some((e) => e.name === 'OPERATOR_TOKENS_FILE'));
  assert.equal(inBaseAndBuilt, [false, true]);
  const file = env('frontend').OPERATOR_TOKENS_FILE!;
  assert.equal(volumeHolding(pod('frontend'), file, 'frontend').secret, {
    secretName: 'operator-tokens',
    defaultMode: 0o444,
  });
  const secrets = (name: string) =>
    (pod(name).volumes as IVolume[]).flatMap((v) => (v.secret ? [v.secret.secretName] : [])).sort();
  assert.equal(
    { backend: secrets('backend'), device: secrets('device'), frontend: secrets('frontend') },
    {
      backend: ['backend-tls', 'device-token', 'mongodb', 'read-tokens'],
      device: ['device-token'],
      frontend: ['backend-read-token', 'frontend-tls', 'operator-tokens'],
    },
  );
});

test('no secret in an environment: every file setting names a read-only mount; no value or patch holds PEM', () => {
  const fileSettings = built
    .filter((m) => m.kind === 'Deployment')
    .flatMap((d) =>
      (d.spec.template.spec.containers[0].env as { name: string; value?: string }[])
        .filter((e) => /_FILE$|^NODE_EXTRA_CA_CERTS$/.test(e.name))
        .map((e) => ({ name: d.metadata.name as string, setting: e.name, value: e.value })),
    );
  const tlsSettings = fileSettings.filter((s) => /^TLS_|CA/.test(s.setting)).map((s) => `${s.name} ${s.setting}`);
  assert.equal(tlsSettings.sort(), [
    'backend TLS_CERT_FILE',
    'backend TLS_KEY_FILE',
    'device BACKEND_CA_FILE',
    'frontend NODE_EXTRA_CA_CERTS',
    'frontend TLS_CERT_FILE',
    'frontend TLS_KEY_FILE',
  ]);
  // Every token is a file too, in no environment as a value or a secretKeyRef (those have no `value`).
  const tokenSettings = built
    .filter((m) => m.kind === 'Deployment')
    .flatMap((d) =>
      (d.spec.template.spec.containers[0].env as { name: string; value?: string }[])
        .filter((e) => /TOKEN/.test(e.name))
        .map((e) => `${d.metadata.name} ${e.name}=${e.value}`),
    );
  assert.equal(tokenSettings.sort(), [
    'backend DEVICE_TOKEN_FILE=/run/secrets/device-token/DEVICE_TOKEN',
    'backend READ_TOKENS_FILE=/run/secrets/read-tokens/READ_TOKENS',
    'device DEVICE_TOKEN_FILE=/run/secrets/device-token/DEVICE_TOKEN',
    'frontend BACKEND_READ_TOKEN_FILE=/run/secrets/backend-read-token/BACKEND_READ_TOKEN',
    'frontend OPERATOR_TOKENS_FILE=/run/secrets/operator-tokens/OPERATOR_TOKENS',
  ]);
  for (const { name, setting, value } of fileSettings) {
    assert.ok(value?.startsWith('/'), `${name} ${setting} is a path`);
    volumeHolding(pod(name), value!, name);
  }
  for (const value of JSON.stringify(built).matchAll(/"value":"([^"]*)"/g))
    assert.not.match(value[1]!, /-----BEGIN|PRIVATE KEY/, 'an env value with PEM text');
  for (const file of readdirSync(COMPONENT))
    assert.not.match(
      readFileSync(join(COMPONENT, file), 'utf8'),
      /-----BEGIN|stringData|^data:|kind: (Secret|ConfigMap)/m,
      file,
    );
});

test.run();
