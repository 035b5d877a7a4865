// runCommand keeps the end of a long output and says that it is not all of it, so a caller never parses a tail as
// the whole.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCommand } from './child-process.ts';

// A child that writes `count` numbered lines of `é` padding (two bytes each in UTF-8) in many chunks.
const writer = (count: number) =>
  `for (let i = 0; i < ${count}; i++) process.stdout.write(String(i).padStart(6, '0') + 'é'.repeat(500) + '\\n')`;
const run = (count: number, keepBytes?: number) =>
  runCommand(process.execPath, ['-e', writer(count)], { timeoutMs: 30_000, keepBytes });

test('an output within the bound is whole and not truncated', async () => {
  const result = await run(3);
  assert.is(result.code, 0);
  assert.is(result.truncated, false);
  assert.is(result.stdout.split('\n').length, 4);
  assert.ok(result.stdout.startsWith('000000é'));
});

test('past the bound: the last bytes kept, whole characters at the end, truncated said', async () => {
  const result = await run(1000, 64 * 1024);
  assert.is(result.code, 0);
  assert.is(result.truncated, true);
  assert.ok(Buffer.byteLength(result.stdout) <= 64 * 1024);
  assert.ok(result.stdout.endsWith(`000999${'é'.repeat(500)}\n`), 'the last line whole');
  assert.not.ok(result.stdout.slice(1).includes('\uFFFD'), 'no character split between chunks');
});

test('keepBytes raises the bound: a megabyte read whole', async () => {
  const result = await run(1000, 2 * 1024 * 1024);
  assert.is(result.truncated, false);
  assert.ok(result.stdout.startsWith('000000é'));
  assert.is(result.stdout.split('\n').length, 1001);
});

test.run();
