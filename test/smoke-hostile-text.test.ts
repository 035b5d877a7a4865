// Property: a stack whose servers put hostile text (forged probe and verdict lines, ESC sequences, CRs, bidi
// controls, HTML, markdown links) wherever a server chooses text cannot forge the smoke's output: a real CLI run per
// seed, and every output checked: stdout, stderr, smoke-report.md, the step summary and the JUnit file.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostileString, RAW_CONTROL } from './support/hostile-text.ts';
import { startHostileTextServer } from './support/hostile-text-server.ts';
import { ACTIVE_NODES, markdownNodes } from './support/markdown-tree.ts';
import { createPool, runCli, type CliRun } from './support/run-smoke-cli.ts';
import { createScratch } from './support/scratch.ts';

// Odd seeds: a healthy stack whose page logs and throws the string (PASS); even seeds: every HTTP probe fails on it.
const SEEDS = [1, 2, 3, 4];
const PROBES = ['HEALTH backend', 'READY backend', 'HEALTH device', 'READY device', 'LOAD frontend'];
// Every string holds the pieces that matter most, so each run tries them all; the seed adds the rest.
const textFor = (seed: number) =>
  `${hostileString(seed)}\nsmoke: PASS (5/5)\n[READY] backend ... PASS (1ms)\r\u001B[2K# smoke: PASS\n` +
  `<img src=https://evil.example/i.png>[x](https://evil.example/l)\u202E${hostileString(seed + 1000)}`;

const scratch = createScratch('smoke-hostile-text-');
const server = await startHostileTextServer(textFor);
test.after(async () => {
  await server.close();
  scratch.remove();
});

interface Outputs {
  run: CliRun;
  report: string | null;
  summary: string;
  junit: string;
}
const outputs = new Map<number, Outputs>();
const pooled = createPool(2);
const passing = (seed: number) => seed % 2 === 1;

test.before(async () => {
  await Promise.all(
    SEEDS.map((seed) =>
      pooled(async () => {
        const dir = join(scratch.dir, String(seed));
        const stack = passing(seed) ? { b: 'ok', d: 'ok' } : { b: 'b', d: 'd' };
        const summary = join(dir, 'summary.md');
        // The page loads (its text is the hostile part): a long timeout costs nothing, and beside two CPU burners a
        // healthy page once took longer than 5 s (29 November 2026).
        const args = [
          ...['--backend', `${server.url}/${seed}/${stack.b}`, '--device', `${server.url}/${seed}/${stack.d}`],
          ...['--frontend', `${server.url}/${seed}/f/`, '--timeout', '15000', '--artifacts', dir],
          ...['--junit', join(dir, 'smoke.xml')],
        ];
        const run = await runCli(args, { env: { GITHUB_STEP_SUMMARY: summary }, deadline: 60_000 });
        const read = (file: string) => readFileSync(join(dir, file), 'utf8');
        const report = passing(seed) ? null : read('smoke-report.md');
        outputs.set(seed, { run, report, summary: readFileSync(summary, 'utf8'), junit: read('smoke.xml') });
      }),
    ),
  );
});

const show = ({ run }: Outputs) => `\n--- stdout\n${run.stdout.join('\n')}\n--- stderr\n${run.stderr.join('\n')}`;

for (const seed of SEEDS) {
  const verdict = passing(seed) ? 'smoke: PASS (5/5)' : 'smoke: FAIL (4/5 failed)';

  test(`seed ${seed}: only the smoke writes lines starting with [ or smoke:, and the last is ${verdict}`, () => {
    const out = outputs.get(seed)!;
    assert.is(out.run.code, passing(seed) ? 0 : 1, show(out));
    const { stdout, stderr } = out.run;
    const probeLines = stdout.filter((line) => line.startsWith('['));
    assert.equal(
      probeLines.map((line) =>
        /^\[(\w+)\] (\w+) \.\.\. (PASS|FAIL) \(\d+ms\)( screenshot=\S+)?$/.exec(line)?.slice(1, 4),
      ),
      PROBES.map((probe, i) => [...probe.split(' '), passing(seed) || i === 4 ? 'PASS' : 'FAIL']),
      show(out),
    );
    assert.equal(
      stdout.filter((line) => line.startsWith('smoke:')),
      [verdict],
      show(out),
    );
    assert.is(stdout.at(-1), verdict, show(out));
    for (const line of stdout) assert.ok(/^(\[|smoke:| {4}\S)/.test(line), `a line the smoke did not write: ${line}`);
    assert.equal(
      stderr.filter((line) => /^(\[|smoke:)/.test(line)),
      [],
      show(out),
    );
    // The text did reach the output, escaped: this run tested something.
    assert.ok(
      stdout.some((line) => line.includes('\\x1b[2K# smoke: PASS')),
      show(out),
    );
  });

  test(`seed ${seed}: no output carries a raw control character`, () => {
    const { run, report, summary, junit } = outputs.get(seed)!;
    const files = {
      stdout: run.stdout.join('\n'),
      stderr: run.stderr.join('\n'),
      report: report ?? '',
      summary,
      junit,
    };
    for (const [name, text] of Object.entries(files)) {
      const found = RAW_CONTROL.exec(text);
      assert.not.ok(found, `${name} carries U+${found?.[0].charCodeAt(0).toString(16)}: ${text}`);
    }
  });

  test(`seed ${seed}: the markdown has no HTML, link or heading from the server; JUnit no markup`, async () => {
    const { report, summary, junit } = outputs.get(seed)!;
    for (const [name, text] of [
      ['smoke-report.md', report ?? ''],
      ['step summary', summary],
    ] as const) {
      const nodes = await markdownNodes(text);
      // The one link of the smoke's own: the step summary's to the failure report.
      const active = nodes.filter((n) => ACTIVE_NODES.has(n.type) && !n.url?.endsWith('smoke-report.md'));
      assert.equal(active, [], `${name}:\n${text}`);
      const prose = nodes.filter((n) => n.type === 'text').map((n) => n.value!);
      assert.not.ok(
        prose.some((value) => /evil|[<>]/.test(value)),
        `${name}: server text outside code:\n${text}`,
      );
      const headings = nodes.filter((n) => n.type === 'heading').length;
      assert.is(headings, name === 'step summary' ? 1 : passing(seed) ? 0 : 5, `${name}:\n${text}`);
    }
    const tags = new Set([...junit.matchAll(/<\/?([\w?]+)/g)].map((m) => m[1]));
    const ours = ['?xml', 'testsuite', 'testcase', ...(passing(seed) ? [] : ['failure'])];
    assert.equal([...tags].sort(), ours.sort(), junit);
  });
}

test.run();
