// A report never lands on another output: same path, through links (even to a file not there yet), hard links.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkOutputPaths } from './output-paths.ts';
import { CLIError } from '../tools/cli-error.ts';

const dir = mkdtempSync(join(tmpdir(), 'smoke-output-paths-test-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);
const shots = at('shots');

mkdirSync(at('real-dir'));
symlinkSync(at('real-dir'), at('dir-link'));
writeFileSync(at('existing.json'), '{}');
symlinkSync(at('existing.json'), at('link-to-existing.json'));
symlinkSync(at('not-yet.xml'), at('link-to-missing.xml'));
linkSync(at('existing.json'), at('hard-link.json'));

/** The one line checkOutputPaths refuses with, or null when it lets the paths pass. */
async function refusal(json: string | null, junit: string | null, env: NodeJS.ProcessEnv = {}) {
  try {
    await checkOutputPaths({ artifacts: shots, json, junit }, env);
    return null;
  } catch (error) {
    assert.instance(error, CLIError);
    return (error as CLIError).message;
  }
}

test('distinct paths pass, also beside the screenshots and with no report at all', async () => {
  assert.is(await refusal(at('r.json'), at('r.xml'), { GITHUB_STEP_SUMMARY: at('summary.md') }), null);
  assert.is(await refusal(join(shots, 'report.json'), join(shots, 'frontend-ok.xml')), null);
  assert.is(await refusal(null, null, { GITHUB_STEP_SUMMARY: join(shots, 'frontend-ok.png') }), null);
});

test('--json and --junit on one file, however spelt, are refused in one line naming both', async () => {
  const same = (a: string, b: string) => `--json ${a} and --junit ${b} are the same file; give each its own path`;
  assert.is(await refusal(at('r'), at('r')), same(at('r'), at('r')));
  assert.is(await refusal(at('r'), `${dir}/./sub/../r`), same(at('r'), `${dir}/./sub/../r`));
  assert.is(await refusal(at('dir-link/r'), at('real-dir/r')), same(at('dir-link/r'), at('real-dir/r')));
  assert.is(
    await refusal(at('link-to-existing.json'), at('existing.json')),
    same(at('link-to-existing.json'), at('existing.json')),
  );
  // A link to a file not there yet: writing through it creates its target.
  assert.is(
    await refusal(at('link-to-missing.xml'), at('not-yet.xml')),
    same(at('link-to-missing.xml'), at('not-yet.xml')),
  );
  assert.is(await refusal(at('hard-link.json'), at('existing.json')), same(at('hard-link.json'), at('existing.json')));
});

test('a report on a screenshot of --artifacts or on GITHUB_STEP_SUMMARY is refused', async () => {
  for (const name of ['frontend-ok.png', 'frontend-fail.png', 'frontend-error.png']) {
    const shot = join(shots, name);
    assert.is(
      await refusal(null, shot),
      `--junit ${shot} and the screenshot ${shot} are the same file; give each its own path`,
    );
  }
  assert.is(
    await refusal(at('summary.md'), null, { GITHUB_STEP_SUMMARY: at('summary.md') }),
    `--json ${at('summary.md')} and GITHUB_STEP_SUMMARY ${at('summary.md')} are the same file; give each its own path`,
  );
});

test.run();
