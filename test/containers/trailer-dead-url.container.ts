// A trailer FAIL against a real compose stack names only what bears on the failure: with a dead backend URL, the
// backend's documented-harmless start-up DEVICE_TOKEN warning is in the report's log, not in the trailer's line.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeTrailer } from '../../smoke/trailer/compose.ts';
import { formatTrailer } from '../../smoke/trailer/line.ts';
import { freePort } from '../../tools/free-port.ts';
import { root } from '../support/spawn-service.ts';
import { ComposeStack } from './support/compose-stack.ts';

const test = suite('trailer dead url');
const artifacts = join(root, '.tmp/container-tests/trailer-dead-url');
const stack = new ComposeStack('trailer-dead-url');

test.after(async () => {
  await stack.down(); // the trailer brought it down; this also removes the images built under the test's name
});

test("a dead backend URL: the backend's start-up DEVICE_TOKEN warning is not what the containers said", async () => {
  const env = { ...process.env };
  for (const key of ['FRONTEND_PORT', 'DEVICE_PORT', 'DEVICE_TOKEN']) delete env[key];
  // The trailer publishes on free ports only what it probes itself; the backend, probed at the dead URL, would take
  // compose.yaml's default 3001, which anything else on the machine may hold.
  env.BACKEND_PORT = '0';
  const run = await composeTrailer({
    runtime: 'docker',
    files: [join(root, 'compose.yaml')],
    project: stack.project,
    waitTimeoutS: 90,
    targets: { backend: `http://127.0.0.1:${await freePort()}` },
    artifacts,
    probeTimeoutMs: 15_000,
    env,
    warn: () => {},
    release: '0123456789ab',
  });
  const line = formatTrailer({ verdict: run.verdict, detail: run.what });
  const report = readFileSync(join(artifacts, 'smoke-report.md'), 'utf8');
  assert.match(line, /^smoke: FAIL — \[HEALTH\] backend: /, `${line}\n${report}`);
  assert.not.match(line, /DEVICE_TOKEN|backend log/, line);
  assert.match(report, 'DEVICE_TOKEN is not set', "the backend logged the warning all the same: the report's log");
});

test.run();
