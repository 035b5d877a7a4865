// A FAIL's baseline: did the same smoke pass on the commit the new one follows (HEAD)? Read from the evidence
// noted on HEAD's tree; where there is none, HEAD's tree is smoked within a bound, and past it the baseline is
// unknown.
import type { ComposeRun } from './compose.ts';
import { readEvidence, type Baseline } from './evidence-note.ts';
import { commitTree, type Git } from './tree.ts';

export interface BaselineOptions {
  /** Seconds the parent's smoke may take; 0: never smoke it, evidence only. */
  boundS: number;
  /** Smokes a tree, stopping at the deadline (Date.now() ms), and notes its evidence. */
  smokeParent: (tree: string, deadline: number) => Promise<ComposeRun>;
}

export const phraseOf = (verdict: 'PASS' | 'FAIL') => (verdict === 'PASS' ? 'parent passed' : 'parent failed too');

export async function baselineOf(git: Git, { boundS, smokeParent }: BaselineOptions): Promise<Baseline> {
  const head = await commitTree(git, 'HEAD');
  if (!head) return { parent: null, tree: null, verdict: null, source: 'none', phrase: 'no parent' };
  const known = { parent: head.commit, tree: head.tree };
  const read = await readEvidence(git, head.tree);
  if (read.found) {
    const { verdict } = read.evidence;
    return { ...known, verdict, source: 'evidence', phrase: phraseOf(verdict) };
  }
  const unknown = (why: string): Baseline => ({ ...known, verdict: null, source: 'none', phrase: `parent ${why}` });
  if (boundS === 0) return unknown('not smoked: no evidence');
  const run = await smokeParent(head.tree, Date.now() + boundS * 1000);
  if (run.late) return unknown(`not smoked within ${boundS} s`);
  if (run.verdict === 'SKIPPED') return unknown(`not smoked: ${run.what}`);
  return { ...known, verdict: run.verdict, source: 'smoked', phrase: phraseOf(run.verdict) };
}
