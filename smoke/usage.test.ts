// The --help text: every option of the table, with its value hint, env fallback and default, in aligned columns.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { smokeArgs } from './config.ts';
import { commandName, smokeUsage } from './usage.ts';

const lines = smokeUsage().split('\n');
const optionLines = lines.filter((line) => /^ +--/.test(line));

test('one line per option of the table, in its order, and nothing else', () => {
  assert.equal(
    optionLines.map((line) => /--[a-z-]+/.exec(line)![0]),
    Object.keys(smokeArgs).map((name) => `--${name}`),
  );
});

test('each line names its hint, its env fallback and its default', () => {
  for (const [name, option] of Object.entries(smokeArgs)) {
    const line = optionLines.find((l) => l.trimStart().startsWith(`--${name}${'hint' in option ? '=' : ' '}`))!;
    assert.ok(line, name);
    if ('hint' in option) assert.ok(line.includes(`--${name}=<${option.hint}>`), line);
    if ('env' in option) assert.ok(line.includes(`env ${option.env}`), line);
    if ('default' in option) assert.ok(line.includes(`default ${option.default}`), line);
    assert.ok(line.includes(option.description), line);
  }
});

test('flags right-aligned, descriptions in one column, no trailing spaces; exit codes last', () => {
  const starts = optionLines.map((line) => line.indexOf('    ', line.indexOf('--')) + 4);
  assert.equal(new Set(starts).size, 1, 'descriptions start in one column');
  // Right-aligned: the flag that starts first is the longest one, two spaces in.
  assert.is(Math.min(...optionLines.map((l) => l.indexOf('--'))), 2, 'the longest flag after two spaces');
  assert.is(optionLines.find((l) => l.includes('--operator-token-file'))!.indexOf('--operator-token-file'), 2);
  assert.ok(lines.every((line) => !/\s$/.test(line)));
  assert.is(lines[2], 'USAGE npx tsx smoke/cli.ts [OPTIONS]');
  assert.is(lines.at(-1), 'Exit codes: 0 all probes passed, 1 one or more probes failed, 2 the run could not happen.');
});

test('the installed package (compiled JavaScript) names its bin; this checkout names tsx', () => {
  assert.is(
    commandName('file:///x/node_modules/service-health-kit/dist/package/smoke/cli.js'),
    'npx service-health-kit',
  );
  assert.is(commandName('file:///x/smoke/cli.ts'), 'npx tsx smoke/cli.ts');
  assert.is(smokeUsage(smokeArgs, 'npx service-health-kit').split('\n')[2], 'USAGE npx service-health-kit [OPTIONS]');
});

test.run();
