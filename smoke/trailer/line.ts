// The smoke trailer line: its three verdicts, how one is written and read back, and what a well-formed one looks
// like. A PASS or FAIL of the compose smoke names the tree it smoked: `tree <12 hex>[ (<baseline>)]: <what it saw>`.

/** The trailer's verdict; the smoke itself only says PASS or FAIL (SmokeVerdict, smoke/types.ts). */
export type TrailerVerdict = 'PASS' | 'FAIL' | 'SKIPPED';

export interface Trailer {
  verdict: TrailerVerdict;
  detail: string;
}

const EM_DASH = '\u2014';

/** The fixed label that makes the automated change agent's next iteration skip an issue. */
export const BLOCKED_LABEL = 'ralph:blocked';

/** A well-formed trailer line; the detail is free text but not empty. */
export const TRAILER_LINE = /^smoke: (PASS|FAIL|SKIPPED) \u2014 (\S.*)$/;

// `tree 4b825dc642cb: …` or `tree 4b825dc642cb (parent passed): …`; the baseline holds no parenthesis of its own.
// The tree is the first 12 hex digits of the tree object's name (`git write-tree`). No `$`: the detail TRAILER_LINE
// gives is one line, so `.*` always runs to its end.
const BOUND = /^tree ([0-9a-f]{12})(?: \(([^()]+)\))?: (\S.*)/;

/** PASS is only ever claimed for the compose target, with every probe passing; `k after a retry` when any retried. */
export const PASS_DETAIL = /^(\d+)\/(\d+) probes against (docker|podman) compose(?:, (\d+) after a retry)?$/;

// Long reasons (a compose error, a stack of probe failures) are cut so the trailer stays a readable line.
export const MAX_DETAIL = 300;

/** The one line to put in the commit message; any newlines in the detail are folded into spaces. */
export function formatTrailer({ verdict, detail }: Trailer): string {
  const oneLine = detail.replace(/\s+/g, ' ').trim() || 'no detail given';
  const short = oneLine.length > MAX_DETAIL ? `${oneLine.slice(0, MAX_DETAIL - 1)}…` : oneLine;
  return `smoke: ${verdict} ${EM_DASH} ${short}`;
}

/** `3/3 probes against docker compose`, `5/5 probes against docker compose, 1 after a retry`. */
export function passDetail(count: number, runtime: string, retried = 0): string {
  const retries = retried > 0 ? `, ${retried} after a retry` : '';
  return `${count}/${count} probes against ${runtime} compose${retries}`;
}

/** The detail bound to the smoked tree: the tree first, so truncating a long FAIL never cuts it off. */
export function boundDetail(shortTree: string, what: string, baseline?: string): string {
  return `tree ${shortTree}${baseline ? ` (${baseline.replace(/[()]/g, '')})` : ''}: ${what}`;
}

export interface ParsedTrailer {
  verdict: TrailerVerdict;
  detail: string;
  /** The short tree the detail names, when it names one. */
  tree?: string;
  baseline?: string;
  /** The detail after the tree and baseline (all of it when it names no tree). */
  what: string;
}

/** A trailer line read back; undefined when it is not one. */
export function parseTrailer(line: string): ParsedTrailer | undefined {
  const match = TRAILER_LINE.exec(line);
  if (!match) return undefined;
  const verdict = match[1] as TrailerVerdict;
  const detail = match[2]!;
  const bound = BOUND.exec(detail);
  if (!bound) return { verdict, detail, what: detail };
  return { verdict, detail, tree: bound[1], ...(bound[2] ? { baseline: bound[2] } : {}), what: bound[3]! };
}

/**
 * Why a PASS detail is not one the trailer writes, or undefined when it is: the tree it smoked, no baseline (a
 * PASS needs none), and `<n>/<n> probes against docker compose` with n > 0.
 */
export function passProblem(parsed: ParsedTrailer): string | undefined {
  if (parsed.tree === undefined) return 'a PASS names the tree it smoked: "tree <12 hex>: <n>/<n> probes …"';
  if (parsed.baseline !== undefined) return 'a PASS carries no baseline';
  const counts = PASS_DETAIL.exec(parsed.what);
  if (!counts || counts[1] !== counts[2] || Number(counts[1]) === 0)
    return 'the detail must read "tree <12 hex>: <n>/<n> probes against docker compose"';
  // Without `after a retry` this is NaN, which neither comparison accepts.
  const retried = Number(counts[4]);
  if (retried === 0 || retried > Number(counts[1]))
    return `"${counts[4]} after a retry" is not between 1 and the ${counts[1]} probes`;
  return undefined;
}
