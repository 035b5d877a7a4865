// The commit-msg check: accepts a message ending in one good trailer, rejects every other shape with a reason.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkMessage, cleanMessage } from './trailer-check.ts';
import { formatTrailer } from './trailer-format.ts';

const body = 'Backend: report the database state in /api/ready\n\nReadiness reads the monitor state.\n\n';
const reject = (message: string, pattern: RegExp) => {
  const reason = checkMessage(message);
  assert.ok(reason, `expected a rejection of ${JSON.stringify(message)}`);
  assert.match(reason!, pattern);
  assert.not.match(reason!, /\n/, 'the reason is one line');
};

test('accepts each verdict as the last line', () => {
  for (const line of [
    'smoke: PASS — 3/3 probes against docker compose',
    'smoke: PASS — 5/5 probes against podman compose',
    'smoke: FAIL — [READY] backend: HTTP 503 checks.database=disconnected',
    'smoke: SKIPPED — no container runtime (neither docker nor podman on PATH); local stack 5/5 PASS',
  ]) {
    assert.is(checkMessage(body + line), undefined, line);
    assert.is(checkMessage(`${body}${line}\n\n`), undefined, 'trailing newlines are fine');
    assert.is(checkMessage(`${body}Co-authored-by: A <a@example.org>\n${line}\r\n`), undefined, 'other trailers and CRLF are fine');
  }
});

test('accepts what formatTrailer writes, and ignores git comments and the --verbose diff', () => {
  const line = formatTrailer({ verdict: 'FAIL', detail: '[HEALTH] backend:\n  connection refused' });
  assert.is(line, 'smoke: FAIL — [HEALTH] backend: connection refused');
  const edited = `${body}${line}\n# Please enter the commit message.\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n`;
  assert.is(checkMessage(edited), undefined);
  assert.equal(cleanMessage('a\n# c\n\nb\n\n'), ['a', '', 'b']);
});

test('a subject that starts with "smoke:" is not a trailer', () => {
  assert.is(checkMessage('smoke: fix the probe timeout\n\nsmoke: SKIPPED — docker daemon unreachable (x)'), undefined);
});

test('rejects a missing trailer', () => {
  reject(body.trim(), /^no smoke trailer/);
  reject('', /^no smoke trailer/);
  reject(`${body}# smoke: PASS — 3/3 probes against docker compose`, /^no smoke trailer/);
});

test('rejects duplicated trailers', () => {
  reject(`${body}smoke: SKIPPED — offline\nsmoke: SKIPPED — offline`, /^2 smoke trailers \(lines 5, 6\)/);
  reject(`${body}smoke: FAIL — x\n\nsmoke: PASS — 3/3 probes against docker compose`, /2 smoke trailers/);
});

test('rejects a trailer that is not the last line', () => {
  reject(`${body}smoke: SKIPPED — offline\nSigned-off-by: A <a@example.org>`, /line 5 must be the message's last line/);
});

test('rejects a trailer with no subject line', () => {
  reject('smoke: SKIPPED — offline', /follow a subject line/);
});

test('rejects a hyphen, double hyphen or en dash instead of the em dash', () => {
  for (const dash of ['-', '--', '\u2013']) reject(`${body}smoke: SKIPPED ${dash} offline`, /em dash — \(U\+2014\)/);
});

test('rejects malformed trailers', () => {
  reject(`${body}smoke: OK — fine`, /verdict is PASS, FAIL or SKIPPED \(got "OK"\)/);
  reject(`${body}smoke: pass — 3/3 probes against docker compose`, /got "pass"/);
  reject(`${body}Smoke: SKIPPED — offline`, /starts with exactly "smoke: "/);
  reject(`${body}smoke:  SKIPPED — offline`, /starts with exactly "smoke: "/);
  reject(`${body}smoke: SKIPPED —`, /detail after the em dash is empty/);
  reject(`${body}smoke: SKIPPED —offline`, /expected "smoke: SKIPPED — <detail>"/);
  reject(`${body}smoke: SKIPPED`, /expected "smoke: SKIPPED — <detail>"/);
});

test('rejects a PASS that does not claim the compose target', () => {
  reject(`${body}smoke: PASS — local stack 5/5`, /PASS needs the compose target/);
  reject(`${body}smoke: PASS — 2/3 probes against docker compose`, /PASS needs the compose target/);
  reject(`${body}smoke: PASS — 0/0 probes against docker compose`, /PASS needs the compose target/);
});

test.run();
