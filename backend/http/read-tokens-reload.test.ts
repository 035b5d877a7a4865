// The read tokens' reload without a signal: what a SIGHUP puts in force, and what a bad file leaves alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createReadTokenReload, reloadReadTokensOnHangup, type ReloadLog } from './read-tokens-reload.ts';

const KEPT = 'read-token-kept-0123456789abcdef';
const ADDED = 'read-token-added-fedcba9876543210';
const ENV = { READ_TOKENS_FILE: '/run/secrets/read-tokens' };

/** The reload over a file holding `text`, with what it applied and the lines it logged. */
function reloadOf(text: string) {
  const applied: (readonly string[])[] = [];
  const lines: string[] = [];
  const log: ReloadLog = {
    info: (fields, message) => void lines.push(`info ${message} ${JSON.stringify(fields)}`),
    warn: (_fields, message) => void lines.push(`warn ${message}`),
  };
  const reload = createReadTokenReload(
    ENV,
    (tokens) => applied.push(tokens),
    log,
    () => text,
  );
  return { reload, applied, lines };
}

test('a reload puts the file in force and counts its tokens, never quoting one', () => {
  const { reload, applied, lines } = reloadOf(`${KEPT}\n# added on Monday\n${ADDED}\n`);
  reload();
  assert.equal(applied, [[KEPT, ADDED]]);
  assert.equal(lines, ['info read tokens reloaded: 2 tokens {"tokens":2}']);
  const one = reloadOf(`${KEPT}\n`);
  one.reload();
  assert.equal(one.lines, ['info read tokens reloaded: 1 token {"tokens":1}']);
});

test('a weak token or an empty file changes nothing: the tokens before stay, one line says why', () => {
  for (const [text, reason] of [
    [
      `${KEPT}\n0123456789abcdef\n`,
      /^warn read tokens not reloaded, the ones listed before stay: READ_TOKENS_FILE entry 2: /,
    ],
    ['\n', /^warn read tokens not reloaded, the ones listed before stay: READ_TOKENS_FILE names an empty file/],
  ] as const) {
    const { reload, applied, lines } = reloadOf(text);
    assert.not.throws(reload);
    assert.equal(applied, []);
    assert.is(lines.length, 1);
    assert.match(lines[0]!, reason);
    assert.not.ok(lines[0]!.includes('0123456789abcdef'), lines[0]);
  }
});

test('tokens not from a file (READ_TOKENS, or none): no reload, SIGHUP keeps its default', () => {
  const log: ReloadLog = { info: () => {}, warn: () => {} };
  assert.is(reloadReadTokensOnHangup({ READ_TOKENS: KEPT }, log), undefined);
  assert.is(reloadReadTokensOnHangup({}, log), undefined);
  assert.type(reloadReadTokensOnHangup(ENV, log), 'function');
});

test.run();
