import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './config-error.ts';
import { checkoutCommit, readReleaseId, releaseIdProblem, sameRelease } from './release-id.ts';

test('RELEASE_ID is the release, trimmed', () => {
  assert.is(readReleaseId({ RELEASE_ID: ' 1.4.0+build.7 ' }), '1.4.0+build.7');
  assert.is(readReleaseId({ RELEASE_ID: 'a'.repeat(40) }), 'a'.repeat(40));
  assert.is(readReleaseId({ RELEASE_ID: 'x'.repeat(128) }), 'x'.repeat(128));
});

test('unset or blank RELEASE_ID: the checkout commit, else unknown', () => {
  assert.is(
    readReleaseId({}, () => '0123456789ab'),
    '0123456789ab',
  );
  assert.is(
    readReleaseId({ RELEASE_ID: '   ' }, () => '0123456789ab'),
    '0123456789ab',
  );
  assert.is(readReleaseId({ RELEASE_ID: '' }), 'unknown');
  assert.is(
    readReleaseId({}, () => undefined),
    'unknown',
  );
});

test('an absurd RELEASE_ID is a one-line ConfigError that quotes it bounded', () => {
  const cases: [string, RegExp][] = [
    ['x'.repeat(129), /is 129 characters long, at most 128$/],
    ['x'.repeat(100_000), /^RELEASE_ID="x{40}…" is not valid: it is 100000 characters long/],
    ['v1 beta', /use letters, digits and \. _ \+ - only/],
    ['-rf', /starting with a letter or digit/],
    ['a\nb', /^RELEASE_ID="a\\nb" is not valid/],
    ['rel"; DROP', /not valid/],
  ];
  for (const [value, expected] of cases) {
    let error: unknown;
    try {
      readReleaseId({ RELEASE_ID: value });
    } catch (caught) {
      error = caught;
    }
    assert.instance(error, ConfigError, value.slice(0, 20));
    const { message } = error as ConfigError;
    assert.match(message, expected);
    assert.not.match(message, /\n/);
    assert.ok(message.length < 200);
  }
});

test('releaseIdProblem names the rule broken', () => {
  assert.is(releaseIdProblem('abc'), undefined);
  assert.is(releaseIdProblem(''), 'it is empty');
  assert.match(releaseIdProblem('é')!, /letters, digits/);
});

test('sameRelease: equal, or a commit and its abbreviation', () => {
  const sha = '0123456789abcdef0123456789abcdef01234567';
  assert.ok(sameRelease('v1.2', 'v1.2'));
  assert.ok(sameRelease('0123456789ab', sha));
  assert.ok(sameRelease(sha, '0123456'));
  assert.not.ok(sameRelease('012345', sha), 'under 7 hex is no commit');
  assert.not.ok(sameRelease('0123456789ac', sha));
  assert.not.ok(sameRelease('v1.2', 'v1.20'));
  assert.not.ok(sameRelease('unknown', sha));
});

test('checkoutCommit: 12 hex in this checkout, undefined outside any', () => {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const commit = checkoutCommit(here);
  // The tests run from a git checkout, or from an export without .git (then there is nothing to find).
  if (commit !== undefined) assert.match(commit, /^[0-9a-f]{12}$/);
  const outside = mkdtempSync(join(tmpdir(), 'no-checkout-'));
  try {
    assert.is(checkoutCommit(outside), undefined);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

test.run();
