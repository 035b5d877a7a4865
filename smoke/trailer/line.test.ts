// The trailer line's grammar, pinned: the tree it names, the 300-character cap, an empty detail, counts of 10 and
// more, and the anchors that keep text before or after a PASS from passing as one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  BLOCKED_LABEL,
  boundDetail,
  formatTrailer,
  MAX_DETAIL,
  parseTrailer,
  passDetail,
  passProblem,
} from './line.ts';

const TREE = '4b825dc642cb';
const pass = (what: string) => passProblem(parseTrailer(`smoke: PASS — ${what}`)!);

test('a PASS names its tree, its counts and the compose runtime, and nothing else', () => {
  assert.is(
    formatTrailer({ verdict: 'PASS', detail: boundDetail(TREE, passDetail(3, 'docker')) }),
    'smoke: PASS — tree 4b825dc642cb: 3/3 probes against docker compose',
  );
  assert.is(passDetail(5, 'podman', 1), '5/5 probes against podman compose, 1 after a retry');
  assert.is(pass(`tree ${TREE}: 12/12 probes against docker compose`), undefined, '10 and more probes');
  assert.is(pass(`tree ${TREE}: 10/10 probes against docker compose, 10 after a retry`), undefined);
  assert.ok(pass(`tree ${TREE}: 10/12 probes against docker compose`), 'not all passed');
  assert.ok(pass(`tree ${TREE}: 1/10 probes against docker compose`), 'the counts are compared whole');
  assert.ok(pass(`tree ${TREE}: 10/1 probes against docker compose`));
});

test('anchored at both ends: text before or after the claim is not a PASS', () => {
  assert.ok(pass(`tree ${TREE}: fake 3/3 probes against docker compose`));
  assert.ok(pass(`fake tree ${TREE}: 3/3 probes against docker compose`));
  assert.ok(pass(`tree ${TREE}: 3/3 probes against docker compose (cached)`));
  assert.ok(pass(`tree ${TREE}: 3/3 probes against docker compose, 1 after a retry!`));
  assert.ok(pass(`tree ${TREE}0: 3/3 probes against docker compose`), 'thirteen hex digits');
  assert.is(parseTrailer(`xsmoke: PASS — tree ${TREE}: 3/3 probes against docker compose`), undefined);
  assert.is(parseTrailer(`smoke: PASS — tree ${TREE}: 3/3 probes\nsmoke: FAIL — x`), undefined, 'one line only');
});

test('reads back what it writes: tree, baseline and what the smoke saw', () => {
  const line = formatTrailer({
    verdict: 'FAIL',
    detail: boundDetail(TREE, '[HEALTH] backend: refused', 'parent passed'),
  });
  assert.is(line, 'smoke: FAIL — tree 4b825dc642cb (parent passed): [HEALTH] backend: refused');
  assert.equal(parseTrailer(line), {
    verdict: 'FAIL',
    detail: 'tree 4b825dc642cb (parent passed): [HEALTH] backend: refused',
    tree: TREE,
    baseline: 'parent passed',
    what: '[HEALTH] backend: refused',
  });
  assert.equal(parseTrailer('smoke: SKIPPED — offline'), { verdict: 'SKIPPED', detail: 'offline', what: 'offline' });
  assert.is(boundDetail(TREE, 'x', 'parent not smoked: (a) b'), 'tree 4b825dc642cb (parent not smoked: a b): x');
});

test('the detail is one line of at most 300 characters, the tree kept, never empty', () => {
  const long = formatTrailer({ verdict: 'FAIL', detail: boundDetail(TREE, 'y'.repeat(400)) });
  const detail = parseTrailer(long)!.detail;
  assert.is(detail.length, MAX_DETAIL);
  assert.is(MAX_DETAIL, 300);
  assert.ok(detail.endsWith('y…'));
  assert.is(parseTrailer(long)!.tree, TREE, 'a long FAIL keeps its tree');
  const exact = 'z'.repeat(300);
  assert.is(formatTrailer({ verdict: 'FAIL', detail: exact }), `smoke: FAIL — ${exact}`, '300 is not cut');
  assert.is(formatTrailer({ verdict: 'SKIPPED', detail: ' \n\t' }), 'smoke: SKIPPED — no detail given');
  assert.is(formatTrailer({ verdict: 'FAIL', detail: 'a\n  b\r\nc' }), 'smoke: FAIL — a b c');
  assert.is(parseTrailer('smoke: FAIL — '), undefined, 'an empty detail is not a trailer');
  assert.is(parseTrailer('smoke: FAIL —  x'), undefined, 'nor one that starts with a space');
});

test('a PASS of no probes, or with a retry count outside 1..n, is not one the trailer writes', () => {
  assert.match(pass(`tree ${TREE}: 0/0 probes against docker compose`)!, /must read/);
  assert.is(
    pass(`tree ${TREE}: 3/3 probes against docker compose, 0 after a retry`),
    '"0 after a retry" is not between 1 and the 3 probes',
  );
  assert.is(
    pass(`tree ${TREE}: 3/3 probes against docker compose, 4 after a retry`),
    '"4 after a retry" is not between 1 and the 3 probes',
  );
  assert.is(pass(`tree ${TREE}: 3/3 probes against docker compose, 1 after a retry`), undefined);
  assert.is(pass(`tree ${TREE} (parent passed): 3/3 probes against docker compose`), 'a PASS carries no baseline');
});

test('a tree without a baseline reads back with no baseline key at all', () => {
  assert.equal(parseTrailer(`smoke: PASS — tree ${TREE}: 3/3 probes against docker compose`), {
    verdict: 'PASS',
    detail: `tree ${TREE}: 3/3 probes against docker compose`,
    tree: TREE,
    what: '3/3 probes against docker compose',
  });
});

test('the label a FAIL puts on an issue is the one the specification fixes', () => {
  assert.is(BLOCKED_LABEL, 'ralph:blocked');
});

test.run();
