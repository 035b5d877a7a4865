// verifyCommit's every answer against a repository held in memory (what git would print for each command it runs),
// so each decision is pinned in milliseconds: verify.test.ts runs the same against real git repositories.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CommandResult } from '../../tools/child-process.ts';
import { failingRun, passingRun } from '../../test/support/smoke-summary.ts';
import { toSmokeResult } from '../result.ts';
import { EVIDENCE_FORMAT, MAX_NOTE_BYTES, NOTES_REF, type SmokeEvidence } from './evidence-note.ts';
import { boundDetail, formatTrailer, passDetail } from './line.ts';
import type { Git } from './tree.ts';
import { verifyCommit } from './verify.ts';

const TREE = 'a1'.repeat(20);
const COMMIT = 'c1'.repeat(20);
const PARENT = 'p0'.repeat(20).replace(/p/g, 'e');
const AT = '2026-03-04T05:06:07.000Z';
const SECONDS = Date.parse(AT) / 1000;
const short = (name: string) => name.slice(0, 12);
const line = (verdict: 'PASS' | 'FAIL' = 'PASS', what = passDetail(3, 'docker'), tree = TREE) =>
  formatTrailer({ verdict, detail: boundDetail(short(tree), what) });

function record(change: Partial<SmokeEvidence> = {}): SmokeEvidence {
  const firstTry = passingRun.probes.map(({ earlierFailure: _, ...probe }) => ({ ...probe, attempts: 1 }));
  return {
    format: EVIDENCE_FORMAT,
    tree: TREE,
    verdict: 'PASS',
    trailer: line(),
    runtime: 'docker',
    at: AT,
    composeConfig: `sha256:${'0'.repeat(64)}`,
    images: { backend: 'sha256:11' },
    smoke: toSmokeResult({ ...passingRun, probes: firstTry, startedAt: AT }),
    baseline: null,
    ...change,
  };
}

interface Repo {
  missing?: boolean;
  notARepo?: boolean;
  shallow?: boolean;
  /** The commit's raw text; undefined: the revision names no commit. */
  message?: string;
  parent?: 'readable' | 'unreadable' | 'none';
  commitUnreadable?: boolean;
  /** The note on TREE: text, or null for a notes ref without one; undefined: no notes ref at all. */
  note?: string | null;
  noteBytes?: number;
  noteUnreadable?: 'fails' | 'truncated';
  /** The author's name and time, when not the committer's. */
  author?: { name: string; time: number };
}

const ok = (stdout: string): CommandResult => ({
  code: 0,
  stdout,
  stderr: '',
  missing: false,
  truncated: false,
  timedOut: false,
});
const no = (code = 1, stderr = ''): CommandResult => ({ ...ok(''), code, stderr });
const commitText = (tree: string, time: number, parent?: string, message = '', author = { name: 'A', time }) =>
  `tree ${tree}\n${parent ? `parent ${parent}\n` : ''}author ${author.name} <a@x> ${author.time} +0000\n` +
  `committer A <a@x> ${time} +0000\n\n${message}`;

/** What git answers each command verifyCommit and its helpers run, for the repository `repo` describes. */
function fakeGit(repo: Repo): Git {
  const parent = repo.parent ?? 'readable';
  const answers: Record<string, () => CommandResult> = {
    'rev-parse --git-dir': () => (repo.notARepo ? no(128, 'fatal: not a git repository') : ok('.git\n')),
    'rev-parse --is-shallow-repository': () => ok(repo.shallow ? 'true\n' : 'false\n'),
    [`rev-parse --verify --quiet ${NOTES_REF}`]: () => (repo.note === undefined ? no() : ok('n0\n')),
    [`cat-file commit ${COMMIT}`]: () =>
      repo.commitUnreadable
        ? no(128, 'fatal: bad object')
        : ok(commitText(TREE, SECONDS + 60, parent === 'none' ? undefined : PARENT, repo.message, repo.author)),
    [`cat-file commit ${PARENT}`]: () =>
      parent === 'unreadable' ? no(128, 'fatal: missing') : ok(commitText('b2'.repeat(20), SECONDS - 3600)),
    [`notes --ref=${NOTES_REF} list ${TREE}`]: () => (typeof repo.note === 'string' ? ok('b10b\n') : no()),
    'cat-file -s b10b': () => ok(`${repo.noteBytes ?? repo.note?.length ?? 0}\n`),
    'cat-file blob b10b': () =>
      repo.noteUnreadable === 'fails'
        ? no(128, 'fatal: broken')
        : { ...ok(repo.note ?? ''), truncated: repo.noteUnreadable === 'truncated' },
  };
  return {
    async run(args) {
      if (repo.missing) return { ...no(null as unknown as number), missing: true };
      const [rev, kind] = /^rev-parse --verify --quiet (.*)\^\{(commit|tree)\}$/.exec(args.join(' '))?.slice(1) ?? [];
      if (rev !== undefined)
        return rev === 'HEAD' && repo.message !== undefined ? ok(`${kind === 'commit' ? COMMIT : TREE}\n`) : no();
      return (answers[args.join(' ')] ?? (() => no(2, `unexpected: git ${args.join(' ')}`)))();
    },
    why: (args, result) => `git ${args[0]} exited ${result.code}: ${result.stderr}`,
  };
}

const message = (trailer = line()) => `Change a.txt\n\nWhy.\n\n${trailer}\n`;
const bound = (repo: Repo = {}) =>
  verifyCommit(fakeGit({ message: message(), note: JSON.stringify(record()), ...repo }), 'HEAD');
const c = short(COMMIT);

test('a trailer bound to its tree with a note that agrees: 0, naming the tree and the time', async () => {
  assert.equal(await bound(), { code: 0, line: `commit ${c}: PASS on tree ${short(TREE)}, evidence of ${AT}` });
  assert.is((await bound({ parent: 'none' })).code, 0, 'a root commit');
  assert.is((await bound({ parent: 'unreadable' })).code, 0, "a parent out of reach: no parent's time to hold");
});

test('what it cannot see: no git, no repository, an option or nothing for a revision, no such commit: 2', async () => {
  assert.equal(await bound({ missing: true }), { code: 2, line: 'git not found on PATH' });
  assert.equal(await bound({ notARepo: true }), {
    code: 2,
    line: 'not a git repository (git rev-parse exited 128: fatal: not a git repository)',
  });
  for (const rev of ['--all', ' ', ''])
    assert.equal(await verifyCommit(fakeGit({}), rev), { code: 2, line: `"${rev}" is not a revision` });
  assert.equal(await verifyCommit(fakeGit({}), 'HEAD'), { code: 2, line: 'HEAD is not a commit in this repository' });
  assert.equal(await verifyCommit(fakeGit({ shallow: true }), 'HEAD'), {
    code: 2,
    line: 'HEAD is not in this shallow clone (fetch more history: git fetch --unshallow)',
  });
  assert.equal(await bound({ commitUnreadable: true }), {
    code: 2,
    line: `commit ${c} cannot be read (git cat-file exited 128: fatal: bad object)`,
  });
});

test('no trailer, or one that names no tree: 1', async () => {
  const none = await bound({ message: 'Change a.txt\n\nJust prose.\n' });
  assert.is(none.code, 1);
  assert.match(none.line, new RegExp(`^commit ${c}: no smoke trailer`));
  assert.equal(await bound({ message: message('smoke: SKIPPED — offline') }), {
    code: 1,
    line: `commit ${c}: its SKIPPED trailer names no tree, so nothing binds it to a smoke`,
  });
  const other = 'f0'.repeat(20);
  assert.equal(await bound({ message: message(line('PASS', passDetail(3, 'docker'), other)) }), {
    code: 1,
    line:
      `commit ${c}: its tree is ${short(TREE)}, but its trailer names tree ${short(other)} ` +
      '(smoked before the commit changed)',
  });
});

test("the message starts after the header's blank line: a trailer as its first line, others beside", async () => {
  // As a subject, the smoke line is no trailer to git; read with the header before it, it would be one.
  assert.equal(await bound({ message: `${line()}\n` }), {
    code: 1,
    line: `commit ${c}: the smoke trailer must follow a subject line, in the message body`,
  });
  // Another trailer before it in the block: the smoke one is the one read.
  const coAuthored = `Change a.txt\n\nWhy.\n\nCo-authored-by: B <b@x>\n${line()}\n`;
  assert.equal(await bound({ message: coAuthored }), await bound());
});

test('no notes, no note on the tree, a note too large or unreadable: 2 or 1, each saying so', async () => {
  assert.equal(await bound({ note: undefined }), {
    code: 2,
    line:
      `commit ${c}: no smoke evidence in this repository (no ${NOTES_REF}) ` +
      '(fetch it: git fetch origin refs/notes/smoke:refs/notes/smoke)',
  });
  assert.equal(await bound({ note: null }), {
    code: 1,
    line: `commit ${c}: no smoke evidence for tree ${short(TREE)}`,
  });
  const big = await bound({ noteBytes: MAX_NOTE_BYTES + 1 });
  assert.is(big.code, 2, big.line);
  assert.match(big.line, `is ${MAX_NOTE_BYTES + 1} bytes, more than the ${MAX_NOTE_BYTES}`);
  assert.not.match(big.line, 'fetch it');
  assert.equal(await bound({ noteUnreadable: 'fails' }), {
    code: 2,
    line: `commit ${c}: the evidence note b10b cannot be read (git cat-file exited 128: fatal: broken)`,
  });
  assert.equal(await bound({ noteUnreadable: 'truncated' }), {
    code: 2,
    line: `commit ${c}: the evidence note b10b cannot be read (more than ${MAX_NOTE_BYTES} bytes)`,
  });
  assert.equal(await bound({ note: 'looks fine to me' }), {
    code: 1,
    line: `commit ${c}: the evidence note is not JSON`,
  });
});

test('a note that says otherwise than the trailer: 1, naming the first disagreement', async () => {
  const other = 'f0'.repeat(20);
  assert.equal(await bound({ note: JSON.stringify(record({ tree: other })) }), {
    code: 1,
    line: `commit ${c}: the evidence noted on tree ${short(TREE)} is for tree ${short(other)}`,
  });
  assert.equal(await bound({ note: JSON.stringify(record({ verdict: 'FAIL' })) }), {
    code: 1,
    line: `commit ${c}: the trailer says PASS, its evidence FAIL`,
  });
  const failedSmoke = toSmokeResult({ ...failingRun, startedAt: AT });
  assert.equal(await bound({ note: JSON.stringify(record({ smoke: failedSmoke })) }), {
    code: 1,
    line: `commit ${c}: the evidence says PASS, the smoke's result in it does not`,
  });
  assert.equal(await bound({ note: JSON.stringify(record({ smoke: null })) }), {
    code: 1,
    line: `commit ${c}: the evidence says PASS, the smoke's result in it does not`,
  });
  const printed = line('PASS', passDetail(3, 'docker', 1));
  assert.equal(await bound({ note: JSON.stringify(record({ trailer: printed })) }), {
    code: 1,
    line: `commit ${c}: the trailer differs from the one the smoke printed ("${printed}")`,
  });
  assert.equal(await bound({ note: JSON.stringify(record({ runtime: 'none' })) }), {
    code: 1,
    line: `commit ${c}: its evidence names runtime "none", not docker or podman`,
  });
});

test("a FAIL: bound when its note's smoke failed, not when the note's smoke passed", async () => {
  const failLine = line('FAIL', 'compose up failed');
  const failed = toSmokeResult({ ...failingRun, startedAt: AT });
  const note = (smoke: SmokeEvidence['smoke']) => JSON.stringify(record({ verdict: 'FAIL', trailer: failLine, smoke }));
  assert.equal(await bound({ message: message(failLine), note: note(failed) }), {
    code: 0,
    line: `commit ${c}: FAIL on tree ${short(TREE)}, evidence of ${AT}`,
  });
  assert.is((await bound({ message: message(failLine), note: note(null) })).code, 0, 'a FAIL before any smoke ran');
  const passed = record().smoke;
  assert.equal(await bound({ message: message(failLine), note: note(passed) }), {
    code: 1,
    line: `commit ${c}: the evidence says FAIL, the smoke's result in it does not`,
  });
});

test("the commit's times bound the evidence: a note older than the parent, or after the commit: 1", async () => {
  const old = new Date((SECONDS - 3600) * 1000 - 10 * 60_000).toISOString();
  const early = await bound({
    note: JSON.stringify(record({ at: old, smoke: { ...record().smoke!, startedAt: old } })),
  });
  assert.equal(early, { code: 1, line: `commit ${c}: its evidence is of ${old}, before the commit's parent was made` });
  const late = new Date((SECONDS + 60) * 1000 + 10 * 60_000).toISOString();
  const after = await bound({
    note: JSON.stringify(record({ at: late, smoke: { ...record().smoke!, startedAt: late } })),
  });
  assert.equal(after, { code: 1, line: `commit ${c}: its evidence is of ${late}, after the commit was made` });
});

test("only the header's lines count: a name or a message that reads like one changes no time", async () => {
  // An author called "committer", with an older time: the commit's time is still the committer's.
  const author = { name: 'Ann committer Smith', time: SECONDS - 7200 };
  assert.is((await bound({ author })).code, 0, 'the author line is not the committer line');
  // A root commit whose message starts a line with its would-be parent: it has no parent to bound the evidence.
  const old = new Date((SECONDS - 3600) * 1000 - 10 * 60_000).toISOString();
  const note = JSON.stringify(record({ at: old, smoke: { ...record().smoke!, startedAt: old } }));
  for (const said of [`parent ${PARENT}`, `parent ${PARENT} was reverted`, `See parent ${PARENT}`]) {
    const text = `Change a.txt\n\n${said}\n\n${line()}\n`;
    assert.is((await bound({ parent: 'none', message: text, note })).code, 0, said);
  }
});

test.run();
