// The commit-msg check: accepts one good trailer in git's trailer block, rejects every other shape with a reason.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkMessage } from './check.ts';
import { parseMessage } from './block.ts';
import { formatTrailer } from './line.ts';

const body = 'Backend: report the database state in /api/ready\n\nReadiness reads the monitor state.\n\n';
const reject = (message: string, pattern: RegExp) => {
  const reason = checkMessage(message);
  assert.ok(reason, `expected a rejection of ${JSON.stringify(message)}`);
  assert.match(reason!, pattern);
  assert.not.match(reason!, /\n/, 'the reason is one line');
};

test('accepts each verdict as the last line', () => {
  for (const line of [
    'smoke: PASS — tree 4b825dc642cb: 3/3 probes against docker compose',
    'smoke: PASS — tree 4b825dc642cb: 5/5 probes against podman compose',
    'smoke: PASS — tree 4b825dc642cb: 12/12 probes against docker compose, 2 after a retry',
    'smoke: FAIL — tree 4b825dc642cb (parent passed): [READY] backend: HTTP 503 checks.database=disconnected',
    'smoke: FAIL — [READY] backend: HTTP 503 checks.database=disconnected',
    'smoke: SKIPPED — no container runtime (neither docker nor podman on PATH); local stack 5/5 PASS',
  ]) {
    assert.is(checkMessage(body + line), undefined, line);
    assert.is(checkMessage(`${body}${line}\n\n`), undefined, 'trailing newlines are fine');
    assert.is(
      checkMessage(`${body}Co-authored-by: A <a@example.org>\n${line}\r\n`),
      undefined,
      'other trailers and CRLF are fine',
    );
  }
});

test('accepts what formatTrailer writes, and ignores git comments and the --verbose diff', () => {
  const line = formatTrailer({ verdict: 'FAIL', detail: '[HEALTH] backend:\n  connection refused' });
  assert.is(line, 'smoke: FAIL — [HEALTH] backend: connection refused');
  const edited =
    `${body}${line}\n# Please enter the commit message.\n` +
    `# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n`;
  assert.is(checkMessage(edited), undefined);
  // As `git interpret-trailers --parse` reads it: b: 1 more
  const parsed = parseMessage(
    'a\n# c\n\nb: 1\n  more\n# d\n\n# e\n# ------------------------ >8 ------------------------\nx: y\n',
  );
  assert.equal(
    parsed.lines.map((l) => l.text),
    ['a', '# c', '', 'b: 1', '  more'],
  );
  assert.equal(parsed.trailers, [{ token: 'b', text: 'b: 1 more', number: 4 }]);
});

test('a subject that starts with "smoke:" is not a trailer', () => {
  assert.is(
    checkMessage('smoke: fix the probe timeout\n\n' + 'smoke: SKIPPED — docker daemon unreachable (x)'),
    undefined,
  );
});

test('rejects a missing trailer', () => {
  reject(body.trim(), /^no smoke trailer/);
  reject('', /^no smoke trailer/);
  reject(`${body}# smoke: PASS — 3/3 probes against docker compose`, /^no smoke trailer/);
});

test('rejects duplicated trailers', () => {
  reject(`${body}smoke: SKIPPED — offline\nsmoke: SKIPPED — offline`, /^2 smoke trailers \(lines 5, 6\)/);
  reject(`${body}smoke: FAIL — x\n\nsmoke: PASS — tree 4b825dc642cb: 3/3 probes against docker compose`, /2 smoke/);
});

test('accepts the trailer anywhere in the final trailer block, as git reads it', () => {
  const smoke = 'smoke: SKIPPED — offline';
  for (const block of [
    `${smoke}\nSigned-off-by: A <a@example.org>`, // git commit -s
    `Co-authored-by: B <b@example.org>\n${smoke}\nSigned-off-by: A <a@example.org>`,
    `${smoke}\nReviewed-by: C <c@example.org>\n  who read it twice`, // a continuation line
    `Refs: #12\n# a comment git skips\n${smoke}`,
    // not all trailers, but a git-generated one and at least a quarter of the lines are: still a block to git
    `Reads the monitor state.\n${smoke}\nSigned-off-by: A <a@example.org>`,
  ]) {
    assert.is(checkMessage(body + block), undefined, block);
  }
  // The unfolded continuation is part of the trailer's value.
  assert.is(
    checkMessage(`${body}smoke: FAIL — [READY] backend:\n  HTTP 503 Service Unavailable\nSigned-off-by: A <a@b>`),
    undefined,
  );
});

test('rejects a trailer outside the final trailer block', () => {
  reject(
    `${body}smoke: SKIPPED — offline\n\nSigned-off-by: A <a@example.org>`,
    /the smoke trailer on line 5 is not in the trailer block at the end of the message/,
  );
  // A last paragraph with prose and no git-generated trailer is no trailer block at all.
  reject(
    `${body}Reads the monitor state.\nsmoke: SKIPPED — offline`,
    /line 5 "Reads the monitor state\." in its paragraph is not a `Token: value` line/,
  );
  // Too much prose for the quarter rule (2 trailers, 7 other lines), even with a sign-off.
  reject(`${body}a\nb\nc\nd\ne\nf\ng\nsmoke: SKIPPED — offline\nSigned-off-by: A <a@b>`, /not a trailer to git/);
  reject('Backend: readiness\nsmoke: SKIPPED — offline', /line 2 is part of the subject's paragraph/);
});

test('rejects two smoke trailers in the block, or one in it and one elsewhere', () => {
  reject(
    `${body}smoke: SKIPPED — offline\nSigned-off-by: A <a@b>\nsmoke: SKIPPED — offline`,
    /^2 smoke trailers \(lines 5, 7\)/,
  );
  reject(
    `${body}smoke: FAIL — x\n\nsmoke: PASS — 3/3 probes against docker compose\nSigned-off-by: A <a@b>`,
    /^2 smoke trailers \(lines 5, 7\)/,
  );
});

test('a continuation line belongs to the smoke trailer, so a PASS detail with one is refused', () => {
  reject(
    `${body}smoke: PASS — tree 4b825dc642cb: 3/3 probes against docker compose\n  (cached)`,
    /PASS needs the compose target.*got "tree 4b825dc642cb: 3\/3 probes against docker compose \(cached\)"/,
  );
});

test('a subject that reads like a verdict is not a second trailer', () => {
  assert.is(checkMessage('smoke: fail fast on a bad --timeout\n\nsmoke: SKIPPED — offline'), undefined);
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

test('rejects a PASS that does not claim the compose target on a tree', () => {
  const tree = 'tree 4b825dc642cb:';
  reject(`${body}smoke: PASS — ${tree} local stack 5/5`, /PASS needs the compose target/);
  reject(`${body}smoke: PASS — ${tree} 2/3 probes against docker compose`, /PASS needs the compose target/);
  reject(`${body}smoke: PASS — ${tree} 0/0 probes against docker compose`, /PASS needs the compose target/);
  reject(`${body}smoke: PASS — 3/3 probes against docker compose`, /a PASS names the tree it smoked/);
  reject(`${body}smoke: PASS — tree 4b825dc642c: 3/3 probes against docker compose`, /names the tree it smoked/);
  reject(`${body}smoke: PASS — tree 4B825DC642CB: 3/3 probes against docker compose`, /names the tree it smoked/);
  reject(`${body}smoke: PASS — tree 4b825dc642cb (parent passed): 3/3 probes against docker compose`, /no baseline/);
  reject(`${body}smoke: PASS — ${tree} 3/3 probes against docker compose, 4 after a retry`, /not between 1 and/);
  reject(`${body}smoke: PASS — ${tree} 3/3 probes against docker compose, 0 after a retry`, /not between 1 and/);
});

test('rejects a detail longer than the trailer ever writes', () => {
  const detail = `tree 4b825dc642cb: ${'x'.repeat(300)}`;
  reject(`${body}smoke: FAIL — ${detail}`, /detail is 319 characters long: at most 300/);
  assert.is(checkMessage(`${body}smoke: FAIL — ${detail.slice(0, 300)}`), undefined, 'exactly 300 is fine');
});

test.run();
