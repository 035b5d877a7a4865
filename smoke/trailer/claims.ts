// What a bound trailer claims, held against the evidence noted on its tree: the probe count, the retries, the
// runtime, that compose ran, the baseline, the first failing probe, and times that fit the commit. A note made by
// hand to say something else than the line disagrees somewhere, and the first disagreement is named.
import type { ProbeRecord } from '../types.ts';
import type { SmokeEvidence } from './evidence-note.ts';
import { PASS_DETAIL, type ParsedTrailer } from './line.ts';

/** When the commit was made and, when it has one, when its parent was: the smoke ran between the two. */
export interface CommitTimes {
  /** The commit's committer time, ms since the epoch. */
  committed: number;
  /** The parent's committer time; undefined for a root commit. */
  parentCommitted?: number;
}

// Two clocks that disagree a little (a note written on one machine, the commit made on another) are not a lie.
export const CLOCK_SKEW_MS = 5 * 60_000;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const RUNTIMES = ['docker', 'podman'];
// `[READY] backend: …`: how a FAIL names its first failing probe (smoke/trailer/smoke.ts).
const FIRST_FAILING = /^\[(HEALTH|READY|LOAD)\] (backend|device|frontend): /;

/** The first claim of `trailer` the evidence does not bear out, or undefined when it bears out all of them. */
export function claimProblem(trailer: ParsedTrailer, evidence: SmokeEvidence, times: CommitTimes): string | undefined {
  return (
    runtimeProblem(trailer, evidence) ??
    (trailer.verdict === 'PASS' ? passProblem(trailer, evidence) : failProblem(trailer, evidence)) ??
    timeProblem(evidence, times)
  );
}

function runtimeProblem(trailer: ParsedTrailer, { runtime }: SmokeEvidence): string | undefined {
  if (!RUNTIMES.includes(runtime)) return `its evidence names runtime "${runtime}", not docker or podman`;
  const named = /\b(docker|podman) compose\b/.exec(trailer.what)?.[1];
  if (named && named !== runtime) return `the trailer says ${named} compose, its evidence ran ${runtime}`;
  return undefined;
}

function passProblem(trailer: ParsedTrailer, { smoke, composeConfig, images }: SmokeEvidence): string | undefined {
  const counts = PASS_DETAIL.exec(trailer.what)!; // check.ts held a PASS to this form
  const claimed = Number(counts[2]);
  if (!smoke) return 'the trailer claims a smoke, its evidence holds none';
  if (smoke.total !== claimed) return `the trailer claims ${claimed} probes, its evidence ${smoke.total}`;
  const failed = smoke.probes.find((probe) => probe.result !== 'PASS');
  if (failed) return `the trailer claims every probe passed, its evidence has ${name(failed)} ${failed.result}`;
  const retried = Number(counts[4] ?? 0);
  const flaky = smoke.probes.filter((probe) => probe.attempts > 1).length;
  if (flaky !== retried) return `the trailer claims ${retried} after a retry, its evidence ${flaky}`;
  if (composeConfig === null || !DIGEST.test(composeConfig))
    return 'the trailer claims a compose stack, its evidence has no digest of its configuration';
  if (Object.keys(images).length === 0) return 'the trailer claims a compose stack, its evidence names no image';
  return undefined;
}

function failProblem(trailer: ParsedTrailer, { smoke, baseline }: SmokeEvidence): string | undefined {
  const phrase = baseline?.phrase.replace(/[()]/g, '');
  if (trailer.baseline !== phrase)
    return `the trailer says ${show(trailer.baseline)} of the parent, its evidence ${show(phrase)}`;
  const named = FIRST_FAILING.exec(trailer.what);
  if (!named) return undefined;
  const first = smoke?.probes.find((probe) => probe.result === 'FAIL');
  if (!first) return `the trailer names [${named[1]}] ${named[2]} failing, its evidence no failed probe`;
  if (first.kind !== named[1] || first.target !== named[2])
    return `the trailer names [${named[1]}] ${named[2]} failing first, its evidence ${name(first)}`;
  return undefined;
}

/** The trailer started after the parent was made and before the commit; its smoke started within that. */
function timeProblem({ at, smoke }: SmokeEvidence, { committed, parentCommitted }: CommitTimes): string | undefined {
  const started = ISO_UTC.test(at) ? Date.parse(at) : NaN;
  if (Number.isNaN(started)) return `its evidence's time "${at}" is not an ISO 8601 time`;
  if (started > committed + CLOCK_SKEW_MS) return `its evidence is of ${at}, after the commit was made`;
  if (parentCommitted !== undefined && started < parentCommitted - CLOCK_SKEW_MS)
    return `its evidence is of ${at}, before the commit's parent was made`;
  if (!smoke) return undefined;
  const smoked = ISO_UTC.test(smoke.startedAt) ? Date.parse(smoke.startedAt) : NaN;
  if (Number.isNaN(smoked) || smoked < started - CLOCK_SKEW_MS || smoked > committed + CLOCK_SKEW_MS)
    return `its smoke started at "${smoke.startedAt}", not between the evidence's ${at} and the commit`;
  return undefined;
}

const name = (probe: ProbeRecord) => `[${probe.kind}] ${probe.target}`;
const show = (phrase: string | undefined) => (phrase === undefined ? 'nothing' : `"${phrase}"`);
