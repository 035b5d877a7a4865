// The `verify` subcommand: a commit's smoke trailer is bound to what was smoked. Its tree is the tree the trailer
// names, the evidence noted on that tree (evidence-note.ts) says the same verdict and the same line, and every
// claim of the line agrees with the record (claims.ts).
import { parseMessage } from './block.ts';
import { checkMessage } from './check.ts';
import { claimProblem, type CommitTimes } from './claims.ts';
import { readEvidence } from './evidence-note.ts';
import { parseTrailer } from './line.ts';
import { commitTree, shortName, type Git } from './tree.ts';

/** 0 bound and consistent; 1 not (a one-line reason); 2 it cannot tell (no repository, no such commit, no notes). */
export interface Verdict {
  code: 0 | 1 | 2;
  line: string;
}

const fail = (line: string): Verdict => ({ code: 1, line });
const unknown = (line: string): Verdict => ({ code: 2, line });

export async function verifyCommit(git: Git, rev: string): Promise<Verdict> {
  const repo = await git.run(['rev-parse', '--git-dir']);
  if (repo.missing) return unknown('git not found on PATH');
  if (repo.code !== 0) return unknown(`not a git repository (${git.why(['rev-parse'], repo)})`);
  if (rev.startsWith('-') || rev.trim() === '') return unknown(`"${rev}" is not a revision`);
  const target = await commitTree(git, rev);
  if (!target) {
    const shallow = await git.run(['rev-parse', '--is-shallow-repository']);
    return shallow.stdout.trim() === 'true'
      ? unknown(`${rev} is not in this shallow clone (fetch more history: git fetch --unshallow)`)
      : unknown(`${rev} is not a commit in this repository`);
  }
  const raw = await git.run(['cat-file', 'commit', target.commit]);
  if (raw.code !== 0)
    return unknown(`commit ${shortName(target.commit)} cannot be read (${git.why(['cat-file'], raw)})`);
  const message = raw.stdout.slice(raw.stdout.indexOf('\n\n') + 2);
  const problem = checkMessage(message);
  if (problem) return fail(`commit ${shortName(target.commit)}: ${problem}`);
  const line = parseMessage(message).trailers.find((trailer) => trailer.token.toLowerCase() === 'smoke')!.text;
  return bound(git, { ...target, times: await commitTimes(git, raw.stdout) }, line);
}

/**
 * The commit's committer time and its parent's, from the commit's raw text (a parent out of reach has none). Only
 * the header is read: a message line that reads `parent <name>` names no parent.
 */
async function commitTimes(git: Git, raw: string): Promise<CommitTimes> {
  const header = (text: string) => text.split('\n\n', 1)[0]!;
  const committed = (text: string) => Number(/^committer .* (\d+) [+-]\d{4}$/m.exec(header(text))?.[1]) * 1000;
  const parent = /^parent ([0-9a-f]+)$/m.exec(header(raw))?.[1];
  const read = parent ? await git.run(['cat-file', 'commit', parent]) : undefined;
  const parentCommitted = read?.code === 0 ? committed(read.stdout) : undefined;
  return { committed: committed(raw), ...(parentCommitted ? { parentCommitted } : {}) };
}

type Target = { commit: string; tree: string; times: CommitTimes };

/** The trailer line against the commit's tree and the evidence noted on it. */
async function bound(git: Git, target: Target, line: string): Promise<Verdict> {
  const trailer = parseTrailer(line)!;
  const commit = shortName(target.commit);
  if (trailer.tree === undefined)
    return fail(`commit ${commit}: its ${trailer.verdict} trailer names no tree, so nothing binds it to a smoke`);
  if (trailer.tree !== shortName(target.tree))
    return fail(
      `commit ${commit}: its tree is ${shortName(target.tree)}, but its trailer names tree ${trailer.tree} ` +
        '(smoked before the commit changed)',
    );
  const read = await readEvidence(git, target.tree);
  if (!read.found) {
    const hint = read.why === 'no-notes' ? ` (fetch it: git fetch origin refs/notes/smoke:refs/notes/smoke)` : '';
    return {
      code: read.why === 'no-notes' || read.why === 'unreadable' ? 2 : 1,
      line: `commit ${commit}: ${read.problem}${hint}`,
    };
  }
  const { evidence } = read;
  if (evidence.tree !== target.tree)
    return fail(`commit ${commit}: the evidence noted on tree ${trailer.tree} is for tree ${shortName(evidence.tree)}`);
  if (evidence.verdict !== trailer.verdict)
    return fail(`commit ${commit}: the trailer says ${trailer.verdict}, its evidence ${evidence.verdict}`);
  if (evidence.verdict === 'PASS' ? evidence.smoke?.result !== 'PASS' : evidence.smoke?.result === 'PASS')
    return fail(`commit ${commit}: the evidence says ${evidence.verdict}, the smoke's result in it does not`);
  if (evidence.trailer !== line)
    return fail(`commit ${commit}: the trailer differs from the one the smoke printed ("${evidence.trailer}")`);
  const disagreement = claimProblem(trailer, evidence, target.times);
  if (disagreement) return fail(`commit ${commit}: ${disagreement}`);
  return { code: 0, line: `commit ${commit}: ${trailer.verdict} on tree ${trailer.tree}, evidence of ${evidence.at}` };
}
