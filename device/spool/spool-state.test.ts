// The spool's write state without files: a failure turns it unwritable once, with the error's code as the reason,
// and a success turns it back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createWriteState } from './spool-state.ts';

const fail = (code: string) => () => {
  throw Object.assign(new Error(`${code}: nope`), { code });
};

test('failures are warned each, the state changes once each way, with the reason', () => {
  const states: Array<[string, string | undefined]> = [];
  const warned: Array<Record<string, unknown>> = [];
  const writes = createWriteState({ failed: (f) => warned.push(f), onState: (s, r) => states.push([s, r]) });
  assert.is(
    writes.attempt(() => 7, { seq: 1 }),
    7,
  );
  assert.is(writes.attempt(fail('ENOSPC'), { seq: 2 }), undefined);
  assert.is(writes.attempt(fail('ENOTDIR'), { seq: 3 }), undefined);
  assert.is(
    writes.attempt(() => 0, { seq: 4 }),
    0,
    'an offset of 0 is a success',
  );
  assert.equal(states, [
    ['unwritable', 'ENOSPC: ENOSPC: nope'],
    ['writable', undefined],
  ]);
  assert.equal(
    warned.map((w) => [w.code, w.seq]),
    [
      ['ENOSPC', 2],
      ['ENOTDIR', 3],
    ],
  );
});

test('an error without a code says error', () => {
  const states: Array<string | undefined> = [];
  const writes = createWriteState({ failed: () => {}, onState: (_s, r) => states.push(r) });
  writes.attempt(() => {
    throw new Error('odd');
  }, {});
  assert.equal(states, ['error: odd']);
});

test.run();
