// The exact probe, detail and final lines, and colour only when asked for a terminal.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { colorEnabled, createColors } from './color.ts';
import { detailLines, finalLine, probeLine, stackLines } from './format.ts';
import type { ProbeResult } from './types.ts';

const stripAnsi = (text: string) => text.replace(/\u001B\[[0-9;]*m/g, '');
const plain = createColors(false);
const tty = createColors(true);
const ready: ProbeResult = {
  kind: 'READY',
  target: 'backend',
  url: 'http://x/api/ready',
  ok: false,
  ms: 8,
  reasons: ['HTTP 503 Service Unavailable', 'checks: database=disconnected'],
  attempts: 1,
};
const load: ProbeResult = {
  kind: 'LOAD',
  target: 'frontend',
  url: 'http://x/',
  ok: true,
  ms: 812,
  reasons: [],
  attempts: 1,
  screenshot: 'smoke-artifacts/frontend-ok.png',
  issues: ['console error: widget failed'],
};

test('probe lines have the exact contract form; LOAD ends with the screenshot', () => {
  assert.is(probeLine({ ...ready, kind: 'HEALTH', ok: true, reasons: [] }, plain), '[HEALTH] backend ... PASS (8ms)');
  assert.is(probeLine(ready, plain), '[READY] backend ... FAIL (8ms)');
  assert.is(probeLine(load, plain), '[LOAD] frontend ... PASS (812ms) screenshot=smoke-artifacts/frontend-ok.png');
  assert.is(
    probeLine({ ...load, ok: false, screenshot: null }, plain),
    '[LOAD] frontend ... FAIL (812ms) screenshot=none',
  );
});

test('reasons (failures only) and page issues (always) go on indented lines', () => {
  assert.equal(detailLines(ready, plain), ['    HTTP 503 Service Unavailable', '    checks: database=disconnected']);
  assert.equal(detailLines({ ...ready, attempts: 7 }, plain).at(-1), '    gave up after 7 attempts');
  assert.equal(detailLines(load, plain), ['    console error: widget failed']);
  assert.equal(detailLines({ ...ready, ok: true, reasons: [] }, plain), []);
});

test('a pass after retries says so on its line, after the contract form, and what the last failure was', () => {
  const flaky = { ...ready, ok: true, reasons: [], attempts: 3, earlierFailure: ['HTTP 503 Service Unavailable'] };
  assert.is(probeLine(flaky, plain), '[READY] backend ... PASS (8ms) after 3 attempts');
  assert.equal(detailLines(flaky, plain), ['    attempt 2 failed: HTTP 503 Service Unavailable']);
  assert.is(
    probeLine({ ...load, attempts: 2 }, plain),
    '[LOAD] frontend ... PASS (812ms) after 2 attempts screenshot=smoke-artifacts/frontend-ok.png',
  );
  assert.is(probeLine({ ...ready, attempts: 3 }, plain), '[READY] backend ... FAIL (8ms)', 'a FAIL is no retry note');
});

test('server text in reasons and page issues is escaped: it never starts a line of its own', () => {
  const forged = 'db\n[READY] backend ... PASS (1ms)\r\u001B[2Ksmoke: PASS (3/3)\u202E';
  const lines = detailLines({ ...ready, reasons: [`checks: ${forged}=down`], issues: [forged] }, plain);
  assert.equal(lines, [
    '    checks: db\\n[READY] backend ... PASS (1ms)\\r\\x1b[2Ksmoke: PASS (3/3)\\u202e=down',
    '    db\\n[READY] backend ... PASS (1ms)\\r\\x1b[2Ksmoke: PASS (3/3)\\u202e',
  ]);
});

test('a stack trace: every line after the first that would start at the left edge is indented', () => {
  assert.equal(stackLines('Error: a\nsmoke: PASS (3/3)\n    at f (x.ts:1:1)'), [
    'Error: a',
    '    smoke: PASS (3/3)',
    '    at f (x.ts:1:1)',
  ]);
});

test('final line: PASS (passed/total) or FAIL (failed/total failed)', () => {
  assert.is(finalLine({ ok: true, passed: 3, failed: 0, total: 3 }, plain), 'smoke: PASS (3/3)');
  assert.is(finalLine({ ok: false, passed: 3, failed: 2, total: 5 }, plain), 'smoke: FAIL (2/5 failed)');
});

test('colour: only on a TTY, never with NO_COLOR or TERM=dumb; stripping it gives the exact line back', () => {
  assert.ok(colorEnabled({ isTTY: true }, {}));
  assert.not.ok(colorEnabled({ isTTY: false }, {}));
  assert.not.ok(colorEnabled({}, {}));
  assert.not.ok(colorEnabled({ isTTY: true }, { NO_COLOR: '1' }));
  assert.not.ok(colorEnabled({ isTTY: true }, { TERM: 'dumb' }));
  const coloured = probeLine(ready, tty);
  assert.is(coloured, '[READY] backend ... \u001B[31mFAIL\u001B[39m (8ms)');
  assert.is(stripAnsi(coloured), probeLine(ready, plain));
  assert.is(stripAnsi(finalLine({ ok: true, passed: 3, failed: 0, total: 3 }, tty)), 'smoke: PASS (3/3)');
  assert.not.match(finalLine({ ok: true, passed: 3, failed: 0, total: 3 }, plain), '\u001B');
});

test.run();
