// The strategic merge behind test/k8s-tls.test.ts: lists merged on Kubernetes' keys, the rest replaced, deletions
// refused rather than misread.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { strategicMerge } from './strategic-merge.ts';

const container = {
  name: 'backend',
  ports: [{ name: 'http', containerPort: 3001 }],
  env: [
    { name: 'PORT', value: '3001' },
    { name: 'BACKEND_URL', value: 'http://backend:3001' },
  ],
  volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
  readinessProbe: { httpGet: { path: '/api/ready', port: 'http' }, periodSeconds: 5 },
  securityContext: { capabilities: { drop: ['ALL'] } },
};
const base = { spec: { containers: [container] } };

test('env by name, ports by number, mounts by path: a match is merged, a new item appended', () => {
  const patch = {
    spec: {
      containers: [
        {
          name: 'backend',
          ports: [{ name: 'https', containerPort: 3443 }],
          env: [
            { name: 'BACKEND_URL', value: 'https://backend:3001' },
            { name: 'TLS_CERT_FILE', value: '/run/tls/tls.crt' },
          ],
          volumeMounts: [{ name: 'tls', mountPath: '/run/tls', readOnly: true }],
          readinessProbe: { httpGet: { scheme: 'HTTPS' } },
        },
      ],
    },
  };
  const merged = strategicMerge(base, patch) as typeof base;
  const [result] = merged.spec.containers;
  assert.equal(result!.env, [
    { name: 'PORT', value: '3001' },
    { name: 'BACKEND_URL', value: 'https://backend:3001' },
    { name: 'TLS_CERT_FILE', value: '/run/tls/tls.crt' },
  ]);
  assert.equal(
    result!.ports.map((p) => p.containerPort),
    [3001, 3443],
  );
  assert.equal(
    result!.volumeMounts.map((m) => m.mountPath),
    ['/tmp', '/run/tls'],
  );
  assert.equal(result!.readinessProbe, {
    httpGet: { path: '/api/ready', port: 'http', scheme: 'HTTPS' },
    periodSeconds: 5,
  });
  assert.is(base.spec.containers[0]!.env[1]!.value, 'http://backend:3001', 'the base is left as it was');
});

test("a Service's ports merge on the port number; a list of strings is replaced", () => {
  const service = { spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }] } };
  const merged = strategicMerge(service, { spec: { ports: [{ name: 'https', port: 443, targetPort: 'https' }] } });
  assert.equal(merged, {
    spec: {
      ports: [
        { name: 'http', port: 80, targetPort: 'http' },
        { name: 'https', port: 443, targetPort: 'https' },
      ],
    },
  });
  const drop = strategicMerge(container.securityContext, { capabilities: { drop: ['NET_RAW'] } });
  assert.equal(drop, { capabilities: { drop: ['NET_RAW'] } });
});

test('deletions and directives are refused, as is a list item without its merge key', () => {
  assert.throws(() => strategicMerge(container, { readinessProbe: null }), /readinessProbe: null/);
  assert.throws(() => strategicMerge(container, { $patch: 'replace' }), /directive \$patch/);
  assert.throws(() => strategicMerge(container, { env: [{ value: 'x' }] }), /env item without its merge key name/);
});

test.run();
