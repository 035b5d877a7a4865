// The smoke with a private CA (docs/access.md#a-local-certificate): the recipe's openssl commands run as written
// in the doc, a fixture stack served over HTTPS with the leaf they make, and the smoke CLI with real Chromium.
// With --ca-file the probes and the page load pass; without it, or with another CA, they fail: exactly that CA.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { runCommand } from '../tools/child-process.ts';
import { createFixtureHandler } from './support/fake-http-server.ts';
import { listen, type Listening } from './support/listen.ts';
import { runCli } from './support/run-smoke-cli.ts';
import { createScratch } from './support/scratch.ts';
import { root } from './support/spawn-service.ts';
import { createTestCa } from './support/test-ca.ts';

const scratch = createScratch('smoke-ca-file-');
const stranger = createTestCa('a CA the stack does not use');
let stack: Listening;

/** The first `sh` block under the recipe's heading, exactly as the doc shows it. */
function recipe(): string {
  const doc = readFileSync(join(root, 'docs/access.md'), 'utf8');
  const section = doc.split('### A local certificate\n')[1]?.split(/\n#{2,3} /)[0] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'docs/access.md has a sh block under "A local certificate"');
  return block!;
}

test.before(async () => {
  const made = await runCommand('bash', ['-euo', 'pipefail', '-c', recipe()], { cwd: scratch.dir, timeoutMs: 30_000 });
  assert.is(made.code, 0, `the recipe failed: ${made.stderr}`);
  const tls = {
    cert: readFileSync(join(scratch.dir, 'localhost.crt')),
    key: readFileSync(join(scratch.dir, 'localhost.key')),
  };
  stack = await listen(createHttpsServer(tls, createFixtureHandler()) as unknown as Server);
});
test.after(async () => {
  await stack?.close();
  scratch.remove();
  stranger.remove();
});

const smoke = (name: string, extra: string[]) => {
  const base = `https://127.0.0.1:${stack.port}`;
  const artifacts = join(scratch.dir, name);
  return runCli(['--backend', `${base}/ok`, '--frontend', `${base}/`, '--artifacts', artifacts, ...extra]);
};

test("--ca-file with the recipe's CA: the probes and Chromium's page load pass", async () => {
  const run = await smoke('trusted', ['--ca-file', join(scratch.dir, 'ca.crt'), '--timeout', '10000']);
  assert.is(run.code, 0, [...run.stdout, ...run.stderr].join('\n'));
  assert.match(run.stdout.find((line) => line.startsWith('[LOAD]')) ?? '', /^\[LOAD\] frontend \.\.\. PASS /);
  assert.is(run.stdout.at(-1), 'smoke: PASS (3/3)');
});

test('no --ca-file: the same stack fails every probe, on the certificate', async () => {
  const run = await smoke('untrusted', ['--timeout', '10000']);
  assert.is(run.code, 1, [...run.stdout, ...run.stderr].join('\n'));
  assert.is(run.stdout.at(-1), 'smoke: FAIL (3/3 failed)');
  assert.ok(
    run.stdout.some((line) => /ERR_CERT_AUTHORITY_INVALID/.test(line)),
    run.stdout.join('\n'),
  );
});

test('SMOKE_CA_FILE naming another CA: nothing is trusted, and stderr says why', async () => {
  const base = `https://127.0.0.1:${stack.port}`;
  const args = ['--backend', `${base}/ok`, '--frontend', `${base}/`, '--artifacts', join(scratch.dir, 'stranger')];
  const run = await runCli(args, { env: { SMOKE_CA_FILE: stranger.caFile } });
  assert.is(run.code, 1, [...run.stdout, ...run.stderr].join('\n'));
  assert.is(run.stdout.at(-1), 'smoke: FAIL (3/3 failed)');
  assert.ok(
    run.stderr.includes(
      "smoke: warning: the frontend's certificate is not trusted by --ca-file (UNABLE_TO_VERIFY_LEAF_SIGNATURE)",
    ),
    run.stderr.join('\n'),
  );
});

test('a --ca-file that is missing or holds no certificate: exit 2, one line', async () => {
  const missing = await smoke('missing', ['--ca-file', join(scratch.dir, 'nope.crt')]);
  assert.is(missing.code, 2);
  assert.equal(missing.stderr, [
    `smoke: --ca-file ${join(scratch.dir, 'nope.crt')} cannot be read (ENOENT): ` +
      "give the path of the CA's certificate (PEM)",
  ]);
  const key = await smoke('key', ['--ca-file', join(scratch.dir, 'ca.key')]);
  assert.is(key.code, 2);
  assert.equal(key.stderr, [
    `smoke: --ca-file ${join(scratch.dir, 'ca.key')} holds no PEM certificate: ` +
      "give the CA's certificate (-----BEGIN CERTIFICATE-----)",
  ]);
});

test.run();
