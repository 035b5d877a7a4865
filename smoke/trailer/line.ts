// The smoke trailer line: its three verdicts, how one is written, and what a well-formed one looks like.

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

/** PASS is only ever claimed for the compose target, with every probe passing. */
export const PASS_DETAIL = /^(\d+)\/(\d+) probes against (docker|podman) compose$/;

// Long reasons (a compose error, a stack of probe failures) are cut so the trailer stays a readable line.
const MAX_DETAIL = 300;

/** The one line to put in the commit message; any newlines in the detail are folded into spaces. */
export function formatTrailer({ verdict, detail }: Trailer): string {
  const oneLine = detail.replace(/\s+/g, ' ').trim() || 'no detail given';
  const short = oneLine.length > MAX_DETAIL ? `${oneLine.slice(0, MAX_DETAIL - 1)}…` : oneLine;
  return `smoke: ${verdict} ${EM_DASH} ${short}`;
}

export const passDetail = (count: number, runtime: string) => `${count}/${count} probes against ${runtime} compose`;
