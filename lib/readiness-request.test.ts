import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { prefersHealthJson, readinessForm } from './readiness-request.ts';

test('no query and no Accept: the default JSON', () => {
  assert.is(readinessForm('', null), 'json');
  assert.is(readinessForm('', undefined), 'json');
  assert.is(readinessForm('', '*/*'), 'json');
});

test('?verbose forms; the last verbose parameter counts; it wins over Accept', () => {
  for (const query of ['verbose', 'verbose=', 'verbose=1', 'verbose=TRUE', 'a=1&verbose', 'verbose=0&verbose=1'])
    assert.is(readinessForm(query, null), 'verbose', query);
  for (const query of ['verbose=0', 'verbose=false', 'verbosity=1', 'a=verbose'])
    assert.is(readinessForm(query, null), 'json', query);
  assert.is(readinessForm('verbose', 'application/health+json'), 'verbose');
});

test('?verbose with any other value is a problem, named in one line', () => {
  assert.equal(readinessForm('verbose=garbage', null), {
    problem:
      'verbose="garbage" is not valid: use ?verbose (or verbose=1, verbose=true), or verbose=0 or false for JSON',
  });
  const bad = readinessForm('verbose=%ZZ%0A', null) as { problem: string };
  assert.match(bad.problem, /^verbose="%ZZ%0A" is not valid/, 'bad percent-encoding is shown as it came');
  const decoded = readinessForm('verbose=a%0Ab', null) as { problem: string };
  assert.match(decoded.problem, /^verbose="a\\nb" is not valid/, 'a decoded newline is escaped');
});

test('Accept: health+json only when it weighs at least as much as what the default JSON satisfies', () => {
  assert.ok(prefersHealthJson('application/health+json'));
  assert.ok(prefersHealthJson('Application/Health+JSON; charset=utf-8'));
  assert.ok(prefersHealthJson('application/json, application/health+json'));
  assert.ok(prefersHealthJson('*/*;q=0.1, application/health+json'));
  assert.not.ok(prefersHealthJson('application/json, application/health+json;q=0.9'));
  assert.not.ok(prefersHealthJson('application/health+json;q=0'));
  assert.not.ok(prefersHealthJson('application/health+json;q=2'));
  assert.not.ok(prefersHealthJson('application/health+jsonx'));
  assert.is(readinessForm('', 'text/html, application/xml'), 'json');
  assert.is(readinessForm('', 'APPLICATION/HEALTH+JSON'), 'health+json');
});

test.run();
