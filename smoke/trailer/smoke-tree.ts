// The compose smoke of one tree: its files copied out of git, the stack built from them and smoked (compose.ts),
// and the record of what it showed, noted on the tree (evidence-note.ts).
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { composeTrailer, type ComposeOptions, type ComposeRun } from './compose.ts';
import { EVIDENCE_FORMAT, writeEvidence, type Baseline, type SmokeEvidence } from './evidence-note.ts';
import { boundDetail, formatTrailer, type Trailer } from './line.ts';
import { shortName, withTreeCopy, type Git } from './tree.ts';

export type TreeSmokeOptions = Omit<ComposeOptions, 'files' | 'release' | 'copy'> & {
  git: Git;
  /** The compose file; one inside `root` is read from the tree's copy, one outside it as it is. */
  composeFile: string;
  root: string;
};

export async function smokeTree(tree: string, { git, composeFile, root, ...options }: TreeSmokeOptions) {
  const inside = relative(root, composeFile);
  const copied = await withTreeCopy(git, tree, async (copy): Promise<ComposeRun> => {
    const file = inside.startsWith('..') || isAbsolute(inside) ? composeFile : join(copy, inside);
    if (!existsSync(file)) return skipped(`${inside} is not in tree ${shortName(tree)} (is it committed or staged?)`);
    return composeTrailer({ ...options, files: [file], release: shortName(tree), copy });
  });
  return 'problem' in copied ? skipped(copied.problem) : copied;
}

const skipped = (what: string): ComposeRun => ({
  verdict: 'SKIPPED',
  what,
  smoke: null,
  images: {},
  composeConfig: null,
});

/** The trailer for a run of a tree: bound to the tree when it smoked it (PASS or FAIL). */
export function treeTrailer(tree: string, run: ComposeRun, baseline?: Baseline | null): Trailer {
  if (run.verdict === 'SKIPPED') return { verdict: 'SKIPPED', detail: run.what };
  return { verdict: run.verdict, detail: boundDetail(shortName(tree), run.what, baseline?.phrase) };
}

/** Notes a PASS or FAIL on its tree; a problem is returned for the caller to say, never thrown. */
export async function noteRun(
  git: Git,
  {
    tree,
    run,
    runtime,
    at,
    baseline,
  }: { tree: string; run: ComposeRun; runtime: string; at: string; baseline: Baseline | null },
): Promise<string | undefined> {
  if (run.verdict === 'SKIPPED') return undefined;
  const evidence: SmokeEvidence = {
    format: EVIDENCE_FORMAT,
    tree,
    verdict: run.verdict,
    trailer: formatTrailer(treeTrailer(tree, run, baseline)),
    runtime,
    at,
    composeConfig: run.composeConfig,
    images: run.images,
    smoke: run.smoke,
    baseline,
  };
  return writeEvidence(git, evidence);
}
