// Server text on a terminal line: every control character, line break and bidi control escaped, all else as it was.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hostileString, RAW_CONTROL } from '../test/support/hostile-text.ts';
import { terminalText } from './terminal-text.ts';

test('line breaks, ESC, C1, DEL, bidi controls and lone surrogates become visible escapes', () => {
  assert.is(terminalText('a\nsmoke: PASS (3/3)'), 'a\\nsmoke: PASS (3/3)');
  assert.is(terminalText('x\r\n\t'), 'x\\r\\n\\t');
  assert.is(terminalText('\u001B[2K\rFAIL'), '\\x1b[2K\\rFAIL');
  assert.is(terminalText('\u0000\u0007\u007F\u0085\u009B'), '\\x00\\x07\\x7f\\x85\\x9b');
  assert.is(terminalText('a\u202Eb\u2066c\u2069\u200E\u200F\u061C'), 'a\\u202eb\\u2066c\\u2069\\u200e\\u200f\\u061c');
  assert.is(terminalText('\u2028\u2029'), '\\u2028\\u2029');
  assert.is(terminalText('\uD800x\uDFFF'), '\\ud800x\\udfff');
});

test('everything else is left as it was: text, backslashes, emoji, accents, CJK', () => {
  for (const text of ['HTTP 503 Service Unavailable', 'C:\\path\\n', '😀 é 日本', '<b>[x](y)</b> | `z`', ''])
    assert.is(terminalText(text), text);
});

test('property: 3000 hostile strings never leave a raw control character or a line break', () => {
  for (let seed = 1; seed <= 3000; seed++) {
    const text = hostileString(seed, 8);
    const shown = terminalText(text);
    assert.not.match(shown, RAW_CONTROL, `seed ${seed}: ${JSON.stringify(text)} → ${JSON.stringify(shown)}`);
    assert.not.match(shown, '\n', `seed ${seed}`);
  }
});

test.run();
