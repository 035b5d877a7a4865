// A trailer FAIL against a real compose stack explains itself: the cause from the containers in its one line, and
// their logs and health checks in smoke-report.md, for a database the backend cannot reach and for a health
// check that cannot run.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeTrailer } from '../../smoke/trailer/compose.ts';
import { formatTrailer } from '../../smoke/trailer/line.ts';
import { root } from '../support/spawn-service.ts';
import { ComposeStack } from './support/compose-stack.ts';

const test = suite('trailer evidence');
const artifacts = join(root, '.tmp/container-tests/trailer-evidence');
const stacks: ComposeStack[] = [];
// The release the images are built as (a tree's short name, when the trailer runs it).
const RELEASE = '0123456789ab';

/** The trailer's compose path against compose.yaml plus `fixture`, as a project of this test's own. */
async function trailerWith(fixture: string | undefined, name: string, targets: { backend?: string } = {}) {
  const files = fixture ? ['compose.yaml', fixture] : ['compose.yaml'];
  const stack = new ComposeStack(name, files);
  stacks.push(stack);
  const warnings: string[] = [];
  const env = { ...process.env };
  for (const key of ['FRONTEND_PORT', 'BACKEND_PORT', 'DEVICE_PORT', 'DEVICE_TOKEN']) delete env[key];
  const run = await composeTrailer({
    runtime: 'docker',
    files: files.map((file) => join(root, file)),
    project: stack.project,
    waitTimeoutS: 90,
    targets,
    artifacts: join(artifacts, name),
    probeTimeoutMs: 15_000,
    env,
    warn: (line) => warnings.push(line),
    release: RELEASE,
  });
  const report = readFileSync(join(artifacts, name, 'smoke-report.md'), 'utf8');
  return { line: formatTrailer({ verdict: run.verdict, detail: run.what }), run, report, warnings, stack };
}

test.after(async () => {
  // The trailer brought each stack down; this also removes the images it built under the test's project names.
  for (const stack of stacks) await stack.down();
});

test('a database the backend cannot reach: FAIL naming it and what the backend logged', async () => {
  const { line, report, warnings, stack } = await trailerWith(
    'test/containers/fixtures/database-unreachable.yaml',
    'database-unreachable',
  );
  assert.is(
    line,
    'smoke: FAIL — [READY] backend: database disconnected (backend log: getaddrinfo ENOTFOUND database)',
    `${line}\n${report}`,
  );
  assert.match(report, /^# smoke: FAIL \(1\/3 failed\)/);
  assert.match(report, '- Checks: `database = disconnected`');
  assert.match(report, '"checks":{"database":"disconnected","devices":"ok"}');
  assert.match(report, 'Screenshot: `frontend-ok.png`');
  assert.match(report, `## Containers (compose project ${stack.project})`);
  assert.match(report, '### backend: running, healthy (its probe failed)');
  assert.match(report, /"reason":"getaddrinfo ENOTFOUND database"/);
  assert.match(report, /- exit 0: /, "the backend's passing health checks are listed");
  assert.not.match(report, '### database', 'the healthy database, not probed, is not blamed');
  assert.ok(warnings.includes(`failure report: ${join(artifacts, 'database-unreachable', 'smoke-report.md')}`));
  const left = await stack.docker(['ps', '-aq', '--filter', `label=com.docker.compose.project=${stack.project}`]);
  assert.is(left.stdout.trim(), '', 'the trailer brought its stack down');
});

test('a health check that cannot run: FAIL on up, naming the check and what it printed', async () => {
  const { line, report } = await trailerWith(
    'test/containers/fixtures/backend-health-check-cannot-run.yaml',
    'health-check-cannot-run',
  );
  assert.match(line, /^smoke: FAIL — docker compose up did not become healthy \(.*; backend health check: /, line);
  assert.match(line, /; backend health check: exec: "no-such-health-check": executable file not found in \$PATH/, line);
  assert.not.match(line, /\n|…/, 'one line, not cut');
  assert.match(report, /^# smoke: FAIL — tree 0123456789ab: docker compose up did not become healthy/);
  assert.match(report, '### backend: running, unhealthy (not running healthy)');
  assert.match(report, /- exit -?\d+: .*no-such-health-check/);
  assert.match(report, /backend listening/, "the backend's own log lines");
});

test.run();
