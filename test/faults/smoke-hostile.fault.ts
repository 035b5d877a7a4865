// Fault: the smoke CLI against servers that hang, trickle, answer garbage or reset, many runs in parallel.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listen, type Listening } from '../support/listen.ts';
import { createFixtureHandler } from '../support/fake-http-server.ts';
import { createPool, probeMs, runCli, type CliRun } from '../support/run-smoke-cli.ts';
import { startHostile, hostile, type HostileServer } from './support/hostile-servers.ts';

// The healthy pages must load within it while three other runs' Chromiums and the hostile servers share the two
// cores: with two CPU burners beside, a healthy LOAD once took longer than 2 s (28 November 2026), so 4 s.
const TIMEOUT_MS = 4000;
// Slack over --timeout for one probe line, and for a whole run (node start, Chromium launch and close, all
// while other runs compete for two cores). A smoke that waits on a hostile server forever misses both.
const PROBE_SLACK_MS = 1000;
const RUN_SLACK_MS = 18_000;
const PARALLEL = 4;

/** `raw:<name>` is a hostile TCP server (support/hostile-servers.ts); `/<path>` is on the smoke's HTTP fixture. */
type Target = `raw:${keyof typeof hostile}` | `/${string}`;

interface Case {
  backend: Target;
  device?: Target;
  frontend: Target;
  code: 0 | 1;
  /** Probe lines expected to FAIL, as `KIND target`; every other line must PASS. */
  failing: string[];
}

const both = (target: string) => [`HEALTH ${target}`, `READY ${target}`];
const CASES: Record<string, Case> = {
  'a healthy stack (control)': { backend: '/ok', device: '/ok', frontend: '/', code: 0, failing: [] },
  'backend hangs': { backend: 'raw:hang', frontend: '/', code: 1, failing: both('backend') },
  'backend trickles its body, device never finishes its headers': {
    backend: 'raw:trickle',
    device: 'raw:endless-headers',
    frontend: '/',
    code: 1,
    failing: [...both('backend'), ...both('device')],
  },
  'backend answers binary garbage and keeps the socket open': {
    backend: 'raw:garbage',
    frontend: '/',
    code: 1,
    failing: both('backend'),
  },
  'device answers garbage and closes': {
    backend: '/ok',
    device: 'raw:garbage-close',
    frontend: '/',
    code: 1,
    failing: both('device'),
  },
  'backend resets every connection': { backend: 'raw:reset', frontend: '/', code: 1, failing: both('backend') },
  'backend stalls mid-body, device sends 1.3 MB': {
    backend: '/slow-body',
    device: '/huge',
    frontend: '/',
    code: 1,
    failing: [...both('backend'), ...both('device')],
  },
  'frontend hangs': { backend: '/ok', frontend: 'raw:hang', code: 1, failing: ['LOAD frontend'] },
  'frontend trickles forever': { backend: '/ok', frontend: 'raw:trickle', code: 1, failing: ['LOAD frontend'] },
  'frontend answers garbage': { backend: '/ok', frontend: 'raw:garbage-close', code: 1, failing: ['LOAD frontend'] },
  'frontend page never fires load': { backend: '/ok', frontend: '/slow-page/', code: 1, failing: ['LOAD frontend'] },
  'everything hostile at once': {
    backend: 'raw:hang',
    device: 'raw:trickle',
    frontend: 'raw:endless-headers',
    code: 1,
    failing: [...both('backend'), ...both('device'), 'LOAD frontend'],
  },
};

const test = suite('smoke under hostile servers');
let fixture: Listening;
const raw = new Map<string, HostileServer>();
let artifacts: string;
const runs = new Map<string, CliRun>();

const url = (target: Target) =>
  target.startsWith('raw:') ? `${raw.get(target.slice(4))!.url}/` : `${fixture.url}${target}`;

test.before(async () => {
  fixture = await listen(createFixtureHandler());
  for (const name of Object.keys(hostile)) raw.set(name, await startHostile(name));
  artifacts = mkdtempSync(join(tmpdir(), 'smoke-hostile-'));
  const pooled = createPool(PARALLEL);
  await Promise.all(
    Object.entries(CASES).map(([name, c], i) =>
      pooled(async () => {
        const args = [
          '--backend',
          url(c.backend),
          ...(c.device ? ['--device', url(c.device)] : []),
          '--frontend',
          url(c.frontend),
        ];
        const started = Date.now();
        const full = [...args, '--timeout', String(TIMEOUT_MS), '--artifacts', join(artifacts, String(i))];
        // A run that never ends is stopped a little after its bound and reported, so the other cases still run.
        const run = await runCli(full, { deadline: TIMEOUT_MS + RUN_SLACK_MS + 5000 }).catch(
          (error: Error): CliRun => ({
            code: `no exit (${error.message})`,
            stdout: [],
            stderr: [],
            notices: [],
            ms: Date.now() - started,
          }),
        );
        runs.set(name, run);
      }),
    ),
  );
});

test.after(async () => {
  await fixture?.close();
  await Promise.all([...raw.values()].map((s) => s.close()));
  if (artifacts) rmSync(artifacts, { recursive: true, force: true });
});

for (const [name, c] of Object.entries(CASES)) {
  test(
    `${name}: exit ${c.code}, each probe within --timeout ${TIMEOUT_MS} ms (+${PROBE_SLACK_MS} ms), ` +
      `the run within ${(TIMEOUT_MS + RUN_SLACK_MS) / 1000} s`,
    () => {
      const run = runs.get(name)!;
      const output = [...run.stdout, ...run.stderr].join('\n');
      const durations = probeMs(run.stdout);
      console.log(
        `    measured: exit ${run.code} after ${run.ms} ms; ` +
          `probes ${[...durations].map(([k, ms]) => `${k} ${ms}ms`).join(', ')}`,
      );
      assert.ok(run.ms <= TIMEOUT_MS + RUN_SLACK_MS, `the run took ${run.ms} ms (exit ${run.code})`);
      assert.is(run.code, c.code, `exit code, output:\n${output}`);
      const total = 2 + (c.device ? 2 : 0) + 1;
      assert.is(durations.size, total, `one line per probe:\n${output}`);
      for (const [probe, ms] of durations) {
        assert.ok(ms <= TIMEOUT_MS + PROBE_SLACK_MS, `${probe} took ${ms} ms with --timeout ${TIMEOUT_MS}`);
        const verdict = run.stdout.find((l) => l.startsWith(`[${probe.replace(' ', '] ')} ...`))!;
        assert.match(verdict, c.failing.includes(probe) ? ' ... FAIL (' : ' ... PASS (', verdict);
      }
      assert.is(
        run.stdout.at(-1),
        c.code === 0 ? `smoke: PASS (${total}/${total})` : `smoke: FAIL (${c.failing.length}/${total} failed)`,
      );
    },
  );
}

test.run();
