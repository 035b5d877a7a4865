// deploy/swarm/frontend-https.yaml read as data: the Swarm stack's option for the frontend's HTTPS, the same as
// compose.cloud.yaml's frontend (the port, the certificate and key as secrets), published host-mode.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { root } from './support/spawn-service.ts';

interface Service {
  environment: Record<string, string>;
  secrets: { source: string; target: string }[];
  ports: unknown[];
}

const read = (path: string) => readFileSync(join(root, path), 'utf8');
const overlay = parse(read('deploy/swarm/frontend-https.yaml')) as {
  services: Record<string, Service>;
  secrets: Record<string, { file: string }>;
};
// Compose's `!reset`, read as the value it resets to (as test/compose.test.ts does).
const RESET = [
  { tag: '!reset', resolve: () => null },
  { tag: '!reset', collection: 'seq' as const, resolve: (seq: unknown) => seq },
];
const cloud = parse(read('compose.cloud.yaml'), { customTags: RESET }) as { services: Record<string, Service> };
const HTTPS_SETTINGS = ['HTTPS_PORT', 'TLS_CERT_FILE', 'TLS_KEY_FILE'];

test('it adds to the frontend only: HTTPS beside the plain port, as the cloud compose does', () => {
  assert.equal(Object.keys(overlay.services), ['frontend']);
  const frontend = overlay.services.frontend!;
  const pick = (env: Record<string, string>) => Object.fromEntries(HTTPS_SETTINGS.map((name) => [name, env[name]]));
  assert.equal(pick(frontend.environment), pick(cloud.services.frontend!.environment));
  assert.is(frontend.environment.HTTPS_PUBLISHED_PORT, '${FRONTEND_HTTPS_PORT:-443}');
  assert.equal(frontend.ports, [{ target: 3443, published: '${FRONTEND_HTTPS_PORT:-443}', mode: 'host' }]);
  assert.not.ok('PORT' in frontend.environment, 'the plain port and its health check stay the stack file’s');
});

test('the certificate and key are Docker secrets from SECRETS_DIR, named by the *_FILE settings', () => {
  const frontend = overlay.services.frontend!;
  const targets = frontend.secrets.map((secret) => `/run/secrets/${secret.target}`);
  for (const name of ['TLS_CERT_FILE', 'TLS_KEY_FILE']) assert.ok(targets.includes(frontend.environment[name]!), name);
  for (const { source } of frontend.secrets)
    assert.match(overlay.secrets[source]?.file ?? '', /^\$\{SECRETS_DIR:\?[^}]*\}\/frontend-tls\.pem/, source);
});

test.run();
