// The trailer's command line: defaults, one-line mistakes, and a usage rendered from the same option table.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { CLIError } from '../../tools/cli-error.ts';
import { projectRoot } from '../../tools/project-root.ts';
import { parseTrailerArgs, trailerArgs, USAGE } from './args.ts';

const mistake = (argv: string[]) => {
  try {
    parseTrailerArgs(argv);
  } catch (error) {
    assert.instance(error, CLIError, argv.join(' '));
    assert.is((error as CLIError).exitCode, 2);
    assert.not.match((error as CLIError).message, /\n/, 'one line');
    return (error as CLIError).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
};

test('no arguments: the defaults the usage names', () => {
  assert.equal(parseTrailerArgs([]), {
    command: 'produce',
    labelRegressionsOnly: false,
    baselineTimeoutS: 300,
    localStack: false,
    waitTimeoutS: 300,
    artifacts: join(projectRoot, 'smoke-artifacts/trailer'),
    probeTimeoutMs: 15000,
  });
  assert.equal(parseTrailerArgs(['check', 'MSG']), { command: 'check', file: 'MSG' });
  assert.equal(parseTrailerArgs(['verify', 'HEAD~1']), { command: 'verify', rev: 'HEAD~1' });
  const regressions = parseTrailerArgs(['--issue', '7', '--label-regressions-only', '--baseline-timeout', '0']);
  assert.equal(
    [regressions.command, 'baselineTimeoutS' in regressions && regressions.baselineTimeoutS],
    ['produce', 0],
  );
  assert.ok('labelRegressionsOnly' in regressions && regressions.labelRegressionsOnly);
  assert.equal(parseTrailerArgs(['--bogus', '-h']).command, 'help', '--help wins');
});

test('mistakes are one line each, from the strict parser or the checks after it', () => {
  assert.is(mistake(['--bogus']), 'unknown option --bogus (run with --help to list the options)');
  assert.is(mistake(['--timeout']), '--timeout needs a value (write --timeout=-x for one starting with "-")');
  assert.is(mistake(['--local-stack=yes']), '--local-stack takes no value');
  assert.is(mistake(['--issue', '4;2']), '--issue 4;2 is not valid: expected an issue number such as 42');
  assert.is(mistake(['--wait-timeout', '0']), '--wait-timeout 0 is not valid: expected a whole number from 1 to 3600');
  assert.is(mistake(['extra']), 'unexpected argument "extra" (the subcommands are check and verify)');
  assert.is(mistake(['check']), 'check takes exactly one argument: the commit message file');
  assert.is(mistake(['verify']), 'verify takes exactly one argument: a commit (HEAD, a hash)');
  assert.is(
    mistake(['--baseline-timeout=-1']),
    '--baseline-timeout -1 is not valid: expected a whole number from 0 to 3600',
  );
});

test('the usage has one line per option of the table, in its order, with its hint and default', () => {
  const lines = USAGE.split('\n').filter((line) => /^ +--/.test(line));
  assert.equal(
    lines.map((line) => /--[a-z-]+/.exec(line)![0]),
    Object.keys(trailerArgs).map((name) => `--${name}`),
  );
  assert.ok(lines.some((line) => line.includes('--wait-timeout=<s>') && line.includes('(default 300)')));
  assert.match(USAGE, /^USAGE npx tsx smoke\/trailer\.ts \[OPTIONS\]\n {6}npx tsx smoke\/trailer\.ts check /m);
});

test.run();
