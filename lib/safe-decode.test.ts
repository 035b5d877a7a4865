// safeDecode: decodes what it can, keeps what it cannot.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { safeDecode } from './safe-decode.ts';

test('decodes percent-encoding', () => {
  assert.is(safeDecode('my%20db%2Fx'), 'my db/x');
});

test('keeps text that is not valid percent-encoding as it was', () => {
  assert.is(safeDecode('p%zzass%'), 'p%zzass%');
});

test.run();
