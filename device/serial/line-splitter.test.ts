// The serial line splitter on its own: line ends, chunk boundaries, and over-long input dropped as it arrives.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLineSplitter } from './line-splitter.ts';

function split(chunks: Array<string | Buffer>, maxBytes = 10) {
  const lines: string[] = [];
  const overlong: string[] = [];
  const splitter = createLineSplitter({
    maxBytes,
    onLine: (line) => lines.push(line),
    onOverlong: (start) => overlong.push(start.toString('latin1')),
  });
  for (const chunk of chunks) splitter.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return { lines, overlong };
}

test('CR, LF and CRLF each end a line; blank lines are skipped', () => {
  assert.equal(split(['a\rb\nc\r\nd\n\n\r\r\ne\r']).lines, ['a', 'b', 'c', 'd', 'e']);
});

test('line ends split across chunks: CRLF is still one end, a lone CR still ends its line', () => {
  assert.equal(split(['a\r', '\nb', '\r', 'c\n', 'd']).lines, ['a', 'b', 'c']);
  assert.equal(split(['ab', 'cd\r', '\r', '\nef\n']).lines, ['abcd', 'ef']);
  // Every way of cutting the same input into two chunks gives the same lines.
  const input = 'one\r\ntwo\rthree\n\r\nfour\r';
  for (let cut = 0; cut <= input.length; cut++) {
    assert.equal(split([input.slice(0, cut), input.slice(cut)]).lines, ['one', 'two', 'three', 'four'], `cut ${cut}`);
  }
});

test('a multi-byte character cut between chunks is decoded whole', () => {
  const bytes = Buffer.from('température\n');
  assert.equal(split([bytes.subarray(0, 5), bytes.subarray(5)], 100).lines, ['température']);
});

test('a line over maxBytes is dropped as it arrives, reported once, and the lines after it are kept', () => {
  const { lines, overlong } = split(['0123456789\n', '0123456789a', 'bcdef', 'more\nnext\n', 'é123456789\n']);
  assert.equal(lines, ['0123456789', 'next'], 'exactly maxBytes is kept; bytes are counted, not characters');
  assert.equal(overlong, ['0123456789a', 'é123456789'.replace('é', '\u00c3\u00a9')]);
});

test('a line that crosses the bound only over several small chunks is dropped; one that reaches it is kept', () => {
  const { lines, overlong } = split(['abc', 'def', 'ghi', 'jk', 'lm', '\n', 'abc', 'def', 'ghij', '\r', 'next\n']);
  assert.equal(lines, ['abcdefghij', 'next']);
  assert.equal(overlong, ['abcdefghijk'], 'reported once, when it passes the bound, with every byte so far');
});

test('an over-long line is reported by its first 100 bytes', () => {
  const { overlong } = split(['x'.repeat(300), '\n'], 150);
  assert.equal(overlong, ['x'.repeat(100)]);
});

test('many lines in one chunk, each end found once: LF-only, CR-only and mixed', () => {
  const many = (end: string) => Array.from({ length: 500 }, (_, i) => `line ${i}${end}`).join('');
  for (const end of ['\n', '\r', '\r\n', '\n\r']) {
    const { lines } = split([many(end)], 100);
    assert.is(lines.length, 500, JSON.stringify(end));
    assert.is(lines.at(-1), 'line 499');
  }
});

test('input without a line end is dropped as it arrives, reported once; the next line is kept', () => {
  const lines: string[] = [];
  let overlong = 0;
  const splitter = createLineSplitter({ maxBytes: 8192, onLine: (l) => lines.push(l), onOverlong: () => overlong++ });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  for (let i = 0; i < 64; i++) splitter.push(chunk); // 4 MiB, no line end
  splitter.push(Buffer.from('\nafter\n'));
  assert.equal([lines, overlong], [['after'], 1]);
});

test.run();
