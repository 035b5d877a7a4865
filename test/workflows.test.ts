// The GitHub Actions workflows: valid against the workflow schema (@action-validator/core), the contract's
// post-deploy steps (docs/contract.md#post-deploy-verification), and the shell of the verdict and health-check
// steps run for real.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { validateWorkflow } from '@action-validator/core';
import { smokeArgs } from '../smoke/config.ts';
import { listen, type Listening } from './support/listen.ts';
import { withDeadline } from './support/deadline.ts';
import { spawnProcess, stopAll } from './support/spawn-process.ts';
import { root } from './infra/compile-healthcheck.ts';
import { createRepo } from './support/git-repo.ts';
import { passingRun } from './support/smoke-summary.ts';
import { toSmokeResult } from '../smoke/result.ts';
import { EVIDENCE_FORMAT, writeEvidence } from '../smoke/trailer/evidence-note.ts';

interface WorkflowStep {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string | number>;
  'continue-on-error'?: boolean;
}
interface Workflow {
  env?: Record<string, string>;
  jobs: Record<
    string,
    { env?: Record<string, string>; steps: WorkflowStep[]; strategy?: { matrix?: Record<string, unknown[]> } }
  >;
}

const dir = join(root, '.github', 'workflows');
const files = readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
const text = (file: string) => readFileSync(join(dir, file), 'utf8');
const load = (file: string) => parse(text(file)) as Workflow;
const allJobs = (workflow: Workflow) => Object.values(workflow.jobs);
const onlyJob = (workflow: Workflow) => {
  const jobs = Object.values(workflow.jobs);
  assert.is(jobs.length, 1, 'one job');
  return jobs[0]!;
};
const indexOf = (steps: WorkflowStep[], match: (s: WorkflowStep) => boolean, what: string) => {
  const index = steps.findIndex(match);
  assert.ok(index >= 0, `a step that ${what}`);
  return index;
};
/** `--flag value` pairs of a shell command, with line continuations joined. */
const flags = (command: string) => {
  const words = command.replace(/\\\n/g, ' ').split(/\s+/).filter(Boolean);
  const found: Record<string, string> = {};
  words.forEach((word, i) => {
    if (word.startsWith('--')) found[word.slice(2)] = (words[i + 1] ?? '').replace(/^"|"$/g, '');
  });
  return found;
};

let servers: Listening[] = [];
test.after.each(async () => {
  await stopAll();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

/** Runs a step's shell as GitHub does (bash -e), in `cwd`, and returns its exit code and output. */
async function runStep(step: WorkflowStep, cwd: string, env: Record<string, string>, limitMs = 20_000) {
  // npm's "new version available" notice would land among the step's lines on a machine that is not CI.
  const quiet = { npm_config_update_notifier: 'false' };
  const proc = spawnProcess('bash', ['-e', '-c', step.run ?? ''], { cwd, env: { ...process.env, ...quiet, ...env } });
  await withDeadline(new Promise((resolve) => proc.child.once('close', resolve)), limitMs, `step "${step.name}"`);
  return { code: await proc.exited, lines: proc.lines };
}

test('ci.yml, deploy-cloud.yml and deploy-dev.yml exist', () => {
  assert.equal(files, ['ci.yml', 'deploy-cloud.yml', 'deploy-dev.yml']);
});

test('every workflow is valid against the GitHub Actions workflow schema', () => {
  for (const file of files) assert.equal(validateWorkflow(text(file)).errors, [], file);
});

test('the schema check is real: an unknown job key is rejected', () => {
  const broken = text('ci.yml').replace('    steps:\n', '    stepz:\n');
  assert.ok(validateWorkflow(broken).errors.length > 0);
});

test('every action is pinned to a major version', () => {
  for (const file of files) {
    for (const step of allJobs(load(file)).flatMap((job) => job.steps))
      if (step.uses) assert.match(step.uses, /^[\w.-]+\/[\w.-]+@v\d+$/, `${file}: ${step.uses}`);
  }
});

test('ci.yml: four jobs, the Node matrix, the faults, the container tests and the advisory trailer check', () => {
  assert.equal(Object.keys(load('ci.yml').jobs), ['test', 'faults', 'containers', 'trailers']);
});

test('ci.yml: the fault suite on Node 20, after npm ci', () => {
  const job = load('ci.yml').jobs.faults!;
  const setup = job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
  assert.is(setup?.with?.['node-version'], 20);
  const install = indexOf(job.steps, (s) => /^npm ci\b/.test(s.run ?? ''), 'runs npm ci');
  const faults = indexOf(job.steps, (s) => s.run === 'npm run test:faults', 'runs the fault suite');
  assert.ok(install < faults, 'in that order');
});

test("ci.yml: a pull request's smoke trailers verified, advisory, each commit that carries one", async () => {
  const job = load('ci.yml').jobs.trailers! as Workflow['jobs'][string] & { if?: string };
  assert.is(job.if, "github.event_name == 'pull_request'");
  const checkout = job.steps.find((s) => s.uses?.startsWith('actions/checkout@'))!;
  assert.equal(checkout.with, { ref: '${{ github.event.pull_request.head.sha }}', 'fetch-depth': 0 });
  const step = job.steps.find((s) => (s.run ?? '').includes('smoke/trailer.ts verify'))!;
  assert.is(step['continue-on-error'], true, 'advisory');
  // For real, in a clone of a repository of the test's own (GIT_DIR): one bound commit, one without a trailer,
  // one whose trailer was edited after the smoke.
  const repo = await createRepo('workflow-trailers-');
  try {
    const base = await repo.commit('Base');
    await repo.git(['branch', 'base']);
    await repo.stage({ 'a.txt': 'a' });
    const tree = await repo.git(['write-tree']);
    const line = `smoke: PASS — tree ${tree.slice(0, 12)}: 3/3 probes against docker compose`;
    const evidence = {
      format: EVIDENCE_FORMAT,
      tree,
      verdict: 'PASS',
      trailer: line,
      runtime: 'docker',
      at: new Date().toISOString(),
    } as const;
    // Evidence that agrees with every claim of the line (smoke/trailer/claims.ts): 3 probes passing at once, a
    // compose stack, smoked just now.
    const probes = passingRun.probes.map(({ earlierFailure: _, ...probe }) => ({ ...probe, attempts: 1 }));
    await writeEvidence(repo.handle, {
      ...evidence,
      composeConfig: `sha256:${'0'.repeat(64)}`,
      images: { backend: 'sha256:11' },
      smoke: toSmokeResult({ ...passingRun, probes, startedAt: evidence.at }),
      baseline: null,
    });
    const bound = await repo.commit(`Bound\n\n${line}`);
    const human = await repo.commit('By hand', { 'b.txt': 'b' });
    const edited = await repo.commit(`Edited\n\n${line}`, { 'c.txt': 'c' });
    const clone = join(repo.dir, '..', 'clone');
    await repo.git(['clone', '--quiet', repo.dir, clone]);
    const env = { ...repo.env, GIT_DIR: join(clone, '.git'), BASE_REF: 'base', HEAD_SHA: edited } as Record<
      string,
      string
    >;
    const editedTree = await repo.git(['rev-parse', `${edited}^{tree}`]);
    const { code, lines } = await runStep(step, root, env, 60_000);
    assert.is(code, 1, lines.join('\n'));
    assert.equal(lines.filter(Boolean), [
      `smoke trailer verified: commit ${bound.slice(0, 12)}: PASS on tree ${tree.slice(0, 12)}, ` +
        `evidence of ${evidence.at}`,
      `${human.slice(0, 12)}: no smoke trailer, not verified`,
      `::warning title=Smoke trailer (advisory)::smoke trailer verify: commit ${edited.slice(0, 12)}: its tree is ` +
        `${editedTree.slice(0, 12)}, but its trailer names tree ${tree.slice(0, 12)} ` +
        '(smoked before the commit changed)',
    ]);
    assert.not.ok(lines.join('\n').includes(base.slice(0, 12)), 'the base is not the pull request');
  } finally {
    repo.remove();
  }
});

test('ci.yml: install, typecheck and test on Node 20 and Node 24', () => {
  const job = load('ci.yml').jobs.test!;
  assert.equal(job.strategy?.matrix?.node, [20, 24]);
  const setup = job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
  assert.is(setup?.with?.['node-version'], '${{ matrix.node }}');
  const install = indexOf(job.steps, (s) => /^npm ci\b/.test(s.run ?? ''), 'runs npm ci');
  const typecheck = indexOf(job.steps, (s) => s.run === 'npm run typecheck', 'typechecks');
  const tests = indexOf(job.steps, (s) => s.run === 'npm test', 'runs the tests');
  assert.ok(install < typecheck && typecheck < tests, 'in that order');
});

test("ci.yml: the container tests run on the runner's Docker through scripts/container-engine.sh", () => {
  const job = load('ci.yml').jobs.containers!;
  const install = indexOf(job.steps, (s) => /^npm ci\b/.test(s.run ?? ''), 'runs npm ci');
  const run = indexOf(job.steps, (s) => (s.run ?? '').includes('npm run test:containers'), 'runs the container tests');
  assert.ok(install < run);
  const lines = job.steps[run]!.run!.trim().split('\n');
  assert.equal(
    lines,
    ['engine=$(bash scripts/container-engine.sh)', 'eval "$engine"', 'npm run test:containers'],
    'the engine first, in the same shell',
  );
});

for (const [file, artifact, where] of [
  ['deploy-cloud.yml', 'cloud-deploy-smoke-artifacts', 'the runner'],
  ['deploy-dev.yml', 'dev-deploy-smoke-artifacts', 'the development host'],
] as const) {
  test(`${file}: advisory smoke step (id smoke, continue-on-error) with options the smoke CLI has`, () => {
    const job = onlyJob(load(file));
    const smokes = job.steps.filter((s) => (s.run ?? '').includes('smoke/cli.ts'));
    assert.is(smokes.length, 1, 'one smoke step');
    const smoke = smokes[0]!;
    assert.is(smoke.id, 'smoke');
    assert.is(smoke['continue-on-error'], true);
    for (const name of Object.keys(flags(smoke.run!))) assert.ok(name in smokeArgs, `--${name} is a smoke CLI option`);
    assert.match(smoke.run!, /set -o pipefail/, 'the exit code of the smoke, not of tee');
  });

  test(`${file}: screenshots uploaded as ${artifact}, kept 7 to 14 days, even when the smoke failed`, () => {
    const job = onlyJob(load(file));
    const smoke = indexOf(job.steps, (s) => s.id === 'smoke', 'is the smoke');
    const upload = indexOf(
      job.steps,
      (s) => s.uses?.startsWith('actions/upload-artifact@') ?? false,
      'uploads an artifact',
    );
    const step = job.steps[upload]!;
    assert.ok(upload > smoke, 'after the smoke');
    assert.is(step.if, 'always()');
    assert.is(step.with?.name, artifact);
    const days = Number(step.with?.['retention-days']);
    assert.ok(days >= 7 && days <= 14, `retention-days ${days}`);
    // The directory the smoke writes is the one uploaded.
    const artifacts = flags(job.steps[smoke]!.run!).artifacts?.replace(
      '$SMOKE_ARTIFACTS',
      job.env?.SMOKE_ARTIFACTS ?? '',
    );
    assert.is(String(step.with?.path).replace(/\/$/, ''), artifacts);
  });

  test(`${file}: the smoke verdict goes to the step summary (step run for real, PASS and FAIL)`, async () => {
    const job = onlyJob(load(file));
    const verdict =
      job.steps[indexOf(job.steps, (s) => (s.run ?? '').includes('GITHUB_STEP_SUMMARY'), 'writes the summary')]!;
    assert.is(verdict.if, 'always()');
    assert.is(verdict.env?.OUTCOME, '${{ steps.smoke.outcome }}');
    const scratch = mkdtempSync(join(tmpdir(), 'workflow-step-'));
    try {
      const summary = join(scratch, 'summary.md');
      writeFileSync(join(scratch, 'smoke.log'), '[HEALTH] backend ... FAIL (12ms)\nsmoke: FAIL (1/3 failed)\n');
      const failed = await runStep(verdict, scratch, { GITHUB_STEP_SUMMARY: summary, OUTCOME: 'failure' });
      assert.is(failed.code, 0, 'the verdict step itself never fails the job');
      assert.match(readFileSync(summary, 'utf8'), /smoke: FAIL \(1\/3 failed\) — step failure\n$/);
      assert.ok(
        failed.lines.includes('::warning title=Smoke (advisory)::smoke: FAIL (1/3 failed)'),
        failed.lines.join('\n'),
      );
      writeFileSync(join(scratch, 'smoke.log'), 'smoke: PASS (3/3)\n');
      const passed = await runStep(verdict, scratch, { GITHUB_STEP_SUMMARY: summary, OUTCOME: 'success' });
      assert.is(passed.code, 0);
      assert.match(readFileSync(summary, 'utf8'), /smoke: PASS \(3\/3\) — step success\n$/);
      assert.equal(passed.lines, []);
      rmSync(join(scratch, 'smoke.log'));
      const missing = await runStep(verdict, scratch, { GITHUB_STEP_SUMMARY: summary, OUTCOME: 'failure' });
      assert.is(missing.code, 0);
      assert.match(readFileSync(summary, 'utf8'), /no verdict line — step failure\n$/);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  test(`${file}: container logs dumped when the job failed and also when the advisory smoke failed`, () => {
    const job = onlyJob(load(file));
    const smoke = indexOf(job.steps, (s) => s.id === 'smoke', 'is the smoke');
    const logs = indexOf(job.steps, (s) => /\blogs --no-color\b/.test(s.run ?? ''), 'dumps the container logs');
    assert.ok(logs > smoke, 'after the smoke');
    // continue-on-error keeps the job green, so failure() alone never sees an advisory smoke failure.
    assert.is(job.steps[logs]!.if, "failure() || steps.smoke.outcome == 'failure'");
    assert.match(job.steps[logs]!.run!, /\bps --all\b/, "the containers' state too");
  });

  test(`${file}: the smoke names its browser (the runner's Google Chrome) and never turns the sandbox off`, () => {
    const job = onlyJob(load(file));
    const smoke = job.steps.find((s) => s.id === 'smoke')!;
    // /usr/bin/chromium has no usable sandbox on ubuntu-24.04 runners (AppArmor restricts user namespaces).
    assert.is(smoke.env?.CHROME_PATH ?? job.env?.CHROME_PATH, '/usr/bin/google-chrome');
    assert.not.match(smoke.run!, /--no-sandbox/);
    assert.is(smoke.env?.SMOKE_NO_SANDBOX ?? job.env?.SMOKE_NO_SANDBOX, undefined);
  });

  test(`${file}: the images are built as the commit deployed, and the smoke expects that release`, () => {
    const job = onlyJob(load(file));
    const smoke = job.steps.find((s) => s.id === 'smoke')!;
    assert.is(flags(smoke.run!)['expect-version'], '$GITHUB_SHA', 'the smoke expects the commit deployed');
    const up = job.steps.find((s) => /docker compose up|\$COMPOSE up/.test(s.run ?? ''))!;
    // Built on the runner (RELEASE_ID in the step's env) or over ssh on the host (RELEASE_ID before the command).
    const built =
      up.env?.RELEASE_ID === '${{ github.sha }}' || /RELEASE_ID='\$GITHUB_SHA' docker compose up/.test(up.run!);
    assert.ok(built, `the build sets RELEASE_ID to the commit: ${up.run}`);
  });

  test(`${file}: deploys to ${where} before the smoke`, () => {
    const job = onlyJob(load(file));
    const smoke = indexOf(job.steps, (s) => s.id === 'smoke', 'is the smoke');
    const up = indexOf(job.steps, (s) => /docker compose up|\$COMPOSE up/.test(s.run ?? ''), 'brings the stack up');
    assert.ok(up < smoke);
  });
}

test('deploy-cloud.yml: stack with the cloud override, 60 s sleep, smoke of runner-local 3000 and 3001', () => {
  const workflow = load('deploy-cloud.yml');
  const job = onlyJob(workflow);
  assert.is(job.env?.COMPOSE, 'docker compose -f compose.yaml -f compose.cloud.yaml');
  const up = indexOf(job.steps, (s) => /^\$COMPOSE up\b/.test(s.run ?? ''), 'starts the stack');
  const sleep = indexOf(job.steps, (s) => s.run?.trim() === 'sleep 60', 'sleeps 60 s');
  const smoke = indexOf(job.steps, (s) => s.id === 'smoke', 'is the smoke');
  assert.ok(up < sleep && sleep < smoke, 'up, then the 60 s sleep, then the smoke');
  const options = flags(job.steps[smoke]!.run!);
  assert.is(options.frontend, 'http://localhost:3000');
  assert.is(options.backend, 'http://localhost:3001');
});

test('deploy-cloud.yml: the deploy health check runs with the host and 3 tries, and is not advisory', () => {
  const job = onlyJob(load('deploy-cloud.yml'));
  const smoke = indexOf(job.steps, (s) => s.id === 'smoke', 'is the smoke');
  const check = indexOf(
    job.steps,
    (s) => (s.run ?? '').includes('scripts/deploy-health-check.sh'),
    'runs the deploy health check',
  );
  const step = job.steps[check]!;
  assert.ok(check > smoke);
  assert.is(step.run, 'bash scripts/deploy-health-check.sh "$DEPLOY_HOST" 3');
  assert.is(step['continue-on-error'], undefined);
  assert.is(step.if, undefined, 'runs only while the job is green, and fails it');
});

test('deploy-cloud.yml: that step, run for real, passes on a healthy backend and fails after 3 tries', async () => {
  const job = onlyJob(load('deploy-cloud.yml'));
  const step = job.steps.find((s) => (s.run ?? '').includes('scripts/deploy-health-check.sh'))!;
  let requests = 0;
  let status = 200;
  const server = await listen((_req, res) => {
    requests++;
    res.writeHead(status).end();
  });
  servers.push(server);
  const env = { DEPLOY_HOST: `127.0.0.1:${server.port}`, RETRY_DELAY_S: '0.05' };
  const healthy = await runStep(step, root, env);
  assert.is(healthy.code, 0, healthy.lines.join('\n'));
  status = 503;
  requests = 0;
  const failing = await runStep(step, root, env);
  assert.is(failing.code, 1);
  assert.is(requests, 3);
});

test(
  'deploy-dev.yml: private network joined and ' +
    'the serve configuration applied before the smoke, which goes through it',
  () => {
    const job = onlyJob(load('deploy-dev.yml'));
    const join = indexOf(
      job.steps,
      (s) => s.uses?.startsWith('tailscale/github-action@') ?? false,
      'joins the tailnet',
    );
    const serve = indexOf(
      job.steps,
      (s) => /tailscale serve --bg --https=443 http:\/\/127\.0\.0\.1:3000/.test(s.run ?? ''),
      'serves the frontend',
    );
    assert.match(job.steps[serve]!.run!, /tailscale serve --bg --https=8443 http:\/\/127\.0\.0\.1:3001/);
    const smoke = indexOf(job.steps, (s) => s.id === 'smoke', 'is the smoke');
    assert.ok(join < serve && serve < smoke);
    const options = flags(job.steps[smoke]!.run!);
    assert.is(options.frontend, 'https://$DEV_HOST');
    assert.is(options.backend, 'https://$DEV_HOST:8443');
  },
);

test.run();
