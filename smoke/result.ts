// The smoke's result as a file: what --json writes (SmokeResult, smoke/types.ts), and the one way a tool reads it
// back. The reader checks the shape by hand, so a file the smoke did not write is a one-line problem, never a PASS.
import { readFile } from 'node:fs/promises';
import { isJsonObject } from '../lib/json-object.ts';
import type { Kind, ProbeRecord, ProbeResult, SmokeResult, SmokeSummary, Target, SmokeVerdict } from './types.ts';

const KINDS: readonly Kind[] = ['HEALTH', 'READY', 'LOAD'];
const TARGETS: readonly Target[] = ['backend', 'device', 'frontend'];
const VERDICTS: readonly SmokeVerdict[] = ['PASS', 'FAIL'];

const verdict = (ok: boolean): SmokeVerdict => (ok ? 'PASS' : 'FAIL');
/** A probe retries only after a failed attempt, so a pass after more than one attempt followed a failure. */
export const isFlaky = (p: Pick<ProbeResult, 'ok' | 'attempts'>) => p.ok && p.attempts > 1;

/** The summary as --json writes it (URLs already redacted by the caller), with the failure report it wrote. */
export function toSmokeResult(s: SmokeSummary, report: string | null = null): SmokeResult {
  const probes = s.probes.map((p): ProbeRecord => ({
    kind: p.kind,
    target: p.target,
    url: p.url,
    result: verdict(p.ok),
    ms: p.ms,
    reason: p.ok || p.reasons.length === 0 ? null : p.reasons.join('; '),
    reasons: p.ok ? [] : p.reasons,
    attempts: p.attempts,
    flaky: isFlaky(p),
    flakyReason: isFlaky(p) ? (p.earlierFailure ?? []).join('; ') : null,
    ...(p.kind === 'LOAD' ? { screenshot: p.screenshot ?? null, issues: p.issues ?? [] } : {}),
    ...(p.kind === 'READY' ? { checks: p.checks ?? null, failing: p.failing ?? null } : {}),
    ...(p.kind === 'HEALTH' ? { version: p.version ?? null } : {}),
    ...(p.kind !== 'LOAD' ? { body: p.ok ? null : (p.body ?? null) } : {}),
  }));
  const { ok, passed, failed, total, ms, startedAt } = s;
  const expectVersion = s.expectVersion ?? null;
  const flaky = probes.filter((p) => p.flaky).length;
  return { result: verdict(ok), passed, failed, total, flaky, ms, startedAt, expectVersion, probes, report };
}

export type ReadResult = { ok: true; result: SmokeResult } | { ok: false; problem: string };

/** Reads a --json file; any trouble (missing, not JSON, another shape) is a one-line problem naming the file. */
export async function readSmokeResult(file: string): Promise<ReadResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return { ok: false, problem: `cannot read the smoke's result ${file}: ${code ?? message}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const what = text.trim() === '' ? 'it is empty' : (error as Error).message.split('\n')[0];
    return { ok: false, problem: `the smoke's result ${file} is not JSON (${what})` };
  }
  const wrong = shapeProblem(value);
  if (wrong) return { ok: false, problem: `${file} is not a smoke result: ${wrong}` };
  return { ok: true, result: value as SmokeResult };
}

const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
const isStrings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');
const isStringMap = (value: unknown) =>
  isJsonObject(value) && Object.values(value).every((item) => typeof item === 'string');
const show = (value: unknown) => (value === undefined ? 'missing' : JSON.stringify(value)?.slice(0, 40));

/** The first way `value` differs from a SmokeResult, or undefined when it is one. */
export function shapeProblem(value: unknown): string | undefined {
  if (!isJsonObject(value)) return `expected an object, found ${Array.isArray(value) ? 'an array' : show(value)}`;
  if (!VERDICTS.includes(value.result as SmokeVerdict)) return `result is ${show(value.result)}, expected PASS or FAIL`;
  for (const key of ['passed', 'failed', 'total', 'flaky', 'ms'] as const)
    if (!isCount(value[key])) return `${key} is ${show(value[key])}, expected a whole number`;
  if (typeof value.startedAt !== 'string') return `startedAt is ${show(value.startedAt)}, expected a string`;
  if (value.report !== null && typeof value.report !== 'string')
    return `report is ${show(value.report)}, expected a string or null`;
  if ('expectVersion' in value && value.expectVersion !== null && typeof value.expectVersion !== 'string')
    return `expectVersion is ${show(value.expectVersion)}, expected a string or null`;
  if (!Array.isArray(value.probes)) return `probes is ${show(value.probes)}, expected an array`;
  for (const [index, probe] of value.probes.entries()) {
    const wrong = probeProblem(probe);
    if (wrong) return `probes[${index}]: ${wrong}`;
  }
  const probes = value.probes as ProbeRecord[];
  if (probes.length === 0) return 'no probes';
  const failing = probes.filter((probe) => probe.result === 'FAIL').length;
  const { passed, failed, total, result } = value as unknown as SmokeResult;
  if (total !== probes.length || failed !== failing || passed + failed !== total)
    return `counts do not add up (passed ${passed}, failed ${failed}, total ${total}, ${probes.length} probes)`;
  if ((result === 'PASS') !== (failed === 0)) return `result ${result} with ${failed} failed`;
  const flaky = probes.filter((probe) => probe.flaky).length;
  if (value.flaky !== flaky) return `flaky is ${show(value.flaky)}, but ${flaky} probes are flaky`;
  return undefined;
}

function probeProblem(probe: unknown): string | undefined {
  if (!isJsonObject(probe)) return `expected an object, found ${show(probe)}`;
  if (!KINDS.includes(probe.kind as Kind)) return `kind is ${show(probe.kind)}, expected ${KINDS.join(', ')}`;
  if (!TARGETS.includes(probe.target as Target))
    return `target is ${show(probe.target)}, expected ${TARGETS.join(', ')}`;
  if (typeof probe.url !== 'string') return `url is ${show(probe.url)}, expected a string`;
  if (!VERDICTS.includes(probe.result as SmokeVerdict)) return `result is ${show(probe.result)}, expected PASS or FAIL`;
  if (!isCount(probe.ms)) return `ms is ${show(probe.ms)}, expected a whole number`;
  if (probe.reason !== null && typeof probe.reason !== 'string')
    return `reason is ${show(probe.reason)}, expected a string or null`;
  if (!isStrings(probe.reasons)) return `reasons is ${show(probe.reasons)}, expected a list of strings`;
  if (!(isCount(probe.attempts) && (probe.attempts as number) >= 1))
    return `attempts is ${show(probe.attempts)}, expected a whole number from 1`;
  if (typeof probe.flaky !== 'boolean') return `flaky is ${show(probe.flaky)}, expected true or false`;
  if (probe.flaky !== (probe.result === 'PASS' && (probe.attempts as number) > 1))
    return `flaky is ${probe.flaky} for a ${probe.result} after ${probe.attempts} attempts`;
  if (probe.flaky ? typeof probe.flakyReason !== 'string' : probe.flakyReason !== null)
    return `flakyReason is ${show(probe.flakyReason)}, expected ${probe.flaky ? 'a string' : 'null'}`;
  if ('screenshot' in probe && probe.screenshot !== null && typeof probe.screenshot !== 'string')
    return `screenshot is ${show(probe.screenshot)}, expected a string or null`;
  if ('issues' in probe && !isStrings(probe.issues))
    return `issues is ${show(probe.issues)}, expected a list of strings`;
  if ('checks' in probe && probe.checks !== null && !isStringMap(probe.checks))
    return `checks is ${show(probe.checks)}, expected an object of strings or null`;
  if ('failing' in probe && probe.failing !== null && !isStrings(probe.failing))
    return `failing is ${show(probe.failing)}, expected a list of strings or null`;
  if ('version' in probe && probe.version !== null && typeof probe.version !== 'string')
    return `version is ${show(probe.version)}, expected a string or null`;
  if ('body' in probe && probe.body !== null && typeof probe.body !== 'string')
    return `body is ${show(probe.body)}, expected a string or null`;
  return undefined;
}
