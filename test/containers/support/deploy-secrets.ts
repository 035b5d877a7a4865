// SECRETS_DIR for a deployment test (compose.cloud.yaml, deploy/swarm/stack.yaml): the tokens below and the load
// balancer's and the frontend's certificates for localhost and 127.0.0.1, from a CA made with openssl here (its
// caFile is what an HTTPS client of port 8443 or the frontend's HTTPS port trusts); and, for
// deploy/swarm/internal-tls.yaml, the replicas' certificate for `backend` and the lb's for `lb` from a second,
// internal CA. The files are world-readable: compose bind-mounts them into containers whose users are not the
// file's owner, and Swarm copies them into secrets mounted 0444.
import { chmodSync, copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestCa, type TestCa } from '../../support/test-ca.ts';

export const DEVICE_TOKEN = 'deploy-test-device-token-0123456789';
export const READ_TOKEN = 'deploy-test-read-token-0123456789ab';
export const OPERATOR_TOKEN = 'deploy-test-operator-token-01234567';

const TLS_FILES = [
  'backend-tls.pem',
  'backend-tls.pem.key',
  'frontend-tls.pem',
  'frontend-tls.pem.key',
  'internal-ca.pem',
  'internal-tls.pem',
  'internal-tls.pem.key',
  'internal-lb.pem',
  'internal-lb.pem.key',
];

export interface DeploySecrets {
  /** The folder to pass as SECRETS_DIR. */
  dir: string;
  caFile: string;
  /** Every secret's text, for "not shown anywhere" checks (the key's PEM body included). */
  secrets: string[];
  remove(): void;
}

export function writeDeploySecrets(label: string): DeploySecrets {
  const ca: TestCa = createTestCa(`${label} CA`);
  const { certFile, keyFile, key } = ca.issue('lb', ['localhost', '127.0.0.1']);
  const files: Record<string, string> = {
    'device-token': `${DEVICE_TOKEN}\n`,
    'read-tokens': `${READ_TOKEN}\n`,
    'backend-read-token': `${READ_TOKEN}\n`,
    'operator-tokens': `${OPERATOR_TOKEN}\n`,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(ca.dir, name), text);
  copyFileSync(certFile, join(ca.dir, 'backend-tls.pem'));
  copyFileSync(keyFile, join(ca.dir, 'backend-tls.pem.key'));
  const frontend = ca.issue('frontend', ['localhost', '127.0.0.1']);
  copyFileSync(frontend.certFile, join(ca.dir, 'frontend-tls.pem'));
  copyFileSync(frontend.keyFile, join(ca.dir, 'frontend-tls.pem.key'));
  const internal = createTestCa(`${label} internal CA`);
  const replica = internal.issue('replica', ['backend']);
  copyFileSync(internal.caFile, join(ca.dir, 'internal-ca.pem'));
  copyFileSync(replica.certFile, join(ca.dir, 'internal-tls.pem'));
  copyFileSync(replica.keyFile, join(ca.dir, 'internal-tls.pem.key'));
  const lb = internal.issue('lb', ['lb']);
  copyFileSync(lb.certFile, join(ca.dir, 'internal-lb.pem'));
  copyFileSync(lb.keyFile, join(ca.dir, 'internal-lb.pem.key'));
  for (const name of [...Object.keys(files), ...TLS_FILES]) chmodSync(join(ca.dir, name), 0o644);
  const keyBody = (pem: string) => pem.split('\n')[1] ?? pem;
  return {
    dir: ca.dir,
    caFile: ca.caFile,
    secrets: [
      DEVICE_TOKEN,
      READ_TOKEN,
      OPERATOR_TOKEN,
      keyBody(key),
      keyBody(frontend.key),
      keyBody(replica.key),
      keyBody(lb.key),
    ],
    remove: () => {
      ca.remove();
      internal.remove();
    },
  };
}
