// Judges a liveness or readiness answer against the contract (docs/contract.md): whether it is live, or which
// readiness state it reports, and the reasons it fails, one line each. The smoke's probes and the frontend's
// status page both judge through it, so a body one calls healthy the other never calls failing.
import type { HttpResponse } from './http-get.ts';
import { sameRelease } from './release-id.ts';
import { isJsonObject } from './json-object.ts';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
// Only for a body without the service's own judgement (`details`, docs/contract.md#readiness-details): check values
// that mean "this dependency is fine" in services that do not say; any other value is shown as a failing check.
// Sets of unknown: a value that is not a string is simply not in them.
const GOOD_CHECKS: ReadonlySet<unknown> = new Set([
  'connected',
  'emulator',
  'ok',
  'ready',
  'up',
  'open',
  'healthy',
  'writable',
]);
// What a 503 may report; anything else (or a 200 that is not "ready") is no readiness answer at all.
const NOT_READY_STATES: ReadonlySet<unknown> = new Set(['not_ready', 'shutting_down']);
// RFC 8259 §8.1: a parser may ignore a byte order mark at the start of a JSON text (JSON.parse does not).
const BOM = '\uFEFF';

/**
 * The checks each service's readiness always reports, whatever their state: what tells a backend from a device
 * service, so that a probe pointed at the wrong one fails (docs/contract.md).
 */
export const REQUIRED_CHECKS = {
  backend: ['database'],
  device: ['serial', 'backend'],
} as const satisfies Record<string, readonly string[]>;

type Body = Record<string, unknown>;
/** The parts of an HTTP answer the judge reads. */
export type Answer = Pick<HttpResponse, 'status' | 'statusText' | 'headers' | 'body'>;

export interface Liveness {
  live: boolean;
  /** Why it is not live, one line each; empty when it is. */
  reasons: string[];
  /**
   * `answered by release X, expected Y` when `expectVersion` was given and another release (or none) answered, else
   * null. Apart from `live`: an old release still answering is alive, and still not the deploy that was asked for.
   */
  release: string | null;
  /** The parsed body when it is a JSON object (the frontend shows its uptime, environment and database). */
  body: Body | undefined;
  /** The release that answered (the body's `version`), or null when it reports none. */
  version: string | null;
}

/** A check as judged: the service's own word (`details`) when it gives one, else the known-good list. */
export interface JudgedCheck {
  ok: boolean;
  /** When the check entered its state, as the service says; null when it does not. */
  since: string | null;
  /** Why it is in this state, as the service says; null when it does not. */
  reason: string | null;
}

/** `failing`: the answer is not a readiness answer (a 200 without "ready", HTML, a 500…). */
export type ReadinessState = 'ready' | 'not_ready' | 'shutting_down' | 'failing';

export interface Readiness {
  state: ReadinessState;
  /** Why it is not ready, one line each; empty when it is. */
  reasons: string[];
  /** Dependency → state, as the body reports it (string values only); empty when it could not be read. */
  checks: Record<string, string>;
  /** Each of `checks`, judged. */
  judged: Record<string, JudgedCheck>;
}

/**
 * `expectVersion`: the release that should answer (the smoke's --expect-version); another one, or none reported, is
 * a reason (`answered by release X, expected Y`). A commit matches its abbreviation (lib/release-id.ts).
 */
export function judgeLiveness(res: Answer, { expectVersion }: { expectVersion?: string } = {}): Liveness {
  const parsed = _parseObject(res);
  const body = typeof parsed === 'string' ? undefined : parsed;
  const version = typeof body?.version === 'string' ? body.version : null;
  const release = expectVersion === undefined || body === undefined ? null : _release(body, expectVersion);
  const result = (reasons: string[]): Liveness => ({ live: reasons.length === 0, reasons, release, body, version });
  if (res.status !== 200) return result([_statusLine(res), ..._bodyExcerpt(res)]);
  if (typeof parsed === 'string') return result([parsed]);
  const wrong = [
    _expectValue(parsed, 'status', 'ok'),
    _expectIsoTime(parsed, 'timestamp'),
    _expectType(parsed, 'uptime', 'number'),
    _expectType(parsed, 'environment', 'string'),
  ].filter((x): x is string => x !== null);
  return result(wrong.length ? [`wrong body: ${wrong.join('; ')}`] : []);
}

/** `required`: checks the body must list (REQUIRED_CHECKS of the service probed); a missing one is a reason. */
export function judgeReadiness(res: Answer, required: readonly string[] = []): Readiness {
  const parsed = _parseObject(res);
  if (typeof parsed === 'string') {
    const reasons = res.status === 200 ? [parsed] : [_statusLine(res), ..._bodyExcerpt(res)];
    return { state: 'failing', reasons, checks: {}, judged: {} };
  }
  const checks = _checks(parsed);
  const judged = judgeChecks(checks, parsed.details);
  const verdict = (state: ReadinessState, reasons: string[]): Readiness => ({ state, reasons, checks, judged });
  if (res.status !== 200) {
    const details = [..._missingChecks(parsed, required), ..._checksLine(parsed)];
    const notReady = res.status === 503 && NOT_READY_STATES.has(parsed.status);
    return verdict(notReady ? (parsed.status as ReadinessState) : 'failing', [_statusLine(res), ...details]);
  }
  const wrong = [_expectValue(parsed, 'status', 'ready'), _expectChecks(parsed)].filter((x): x is string => x !== null);
  wrong.push(..._missingChecks(parsed, required));
  if (wrong.length === 0) return verdict('ready', []);
  return verdict('failing', [`wrong body: ${wrong.join('; ')}`, ..._checksLine(parsed)]);
}

/**
 * Each check judged by the service's `details` entry when it has a boolean `ok` (the service's own definition of
 * its good states), else by the known-good list: older services and others that send no details.
 */
export function judgeChecks(checks: Record<string, unknown>, details: unknown): Record<string, JudgedCheck> {
  const given = isJsonObject(details) ? details : {};
  const judged: Record<string, JudgedCheck> = {};
  for (const [name, state] of Object.entries(checks)) {
    // Optional chaining reads a missing, inherited or non-object entry as no `ok`, `since` or `reason`.
    const detail = given[name] as Body | null | undefined;
    const own = typeof detail?.ok === 'boolean' ? detail.ok : undefined;
    judged[name] = {
      ok: own ?? GOOD_CHECKS.has(state),
      since: typeof detail?.since === 'string' ? detail.since : null,
      reason: typeof detail?.reason === 'string' ? detail.reason : null,
    };
  }
  return judged;
}

function _parseObject(res: Answer): Body | string {
  const type = String(res.headers['content-type'] ?? 'no content-type').split(';')[0];
  let value: unknown;
  try {
    value = JSON.parse(res.body.startsWith(BOM) ? res.body.slice(BOM.length) : res.body);
  } catch {
    return `body is not JSON (${type}): ${_excerpt(res.body)}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `body is JSON but not an object: ${_excerpt(res.body)}`;
  }
  return value as Body;
}

function _expectValue(body: Body, key: string, expected: string): string | null {
  return body[key] === expected ? null : `${key} is ${_show(body[key])}, expected "${expected}"`;
}

function _expectType(body: Body, key: string, type: 'number' | 'string'): string | null {
  const value = body[key];
  const ok = type === 'number' ? Number.isFinite(value) : typeof value === 'string';
  return ok ? null : `${key} is ${_show(value)}, expected a ${type}`;
}

function _expectIsoTime(body: Body, key: string): string | null {
  const value = body[key];
  if (typeof value === 'string' && ISO_8601.test(value) && !Number.isNaN(Date.parse(value))) return null;
  return `${key} is ${_show(value)}, expected an ISO 8601 date-time string`;
}

function _expectChecks(body: Body): string | null {
  const checks = body.checks;
  if (isJsonObject(checks)) return null;
  return `checks is ${_show(checks)}, expected an object`;
}

/** `checks.database is missing`, one per required check the body's checks object does not list. */
function _missingChecks(body: Body, required: readonly string[]): string[] {
  const checks = body.checks;
  if (typeof checks !== 'object' || checks === null || Array.isArray(checks)) return [];
  return required.filter((key) => !Object.hasOwn(checks, key)).map((key) => `checks.${key} is missing`);
}

/**
 * The checks that are not fine (`database: disconnected`), in the body's order: those named in `failing` (the
 * service's own judgement, as the smoke's result carries it), or, without it, those the known-good list does not know.
 */
export const failingChecks = (checks: Record<string, unknown>, failing?: readonly string[] | null) =>
  Object.entries(checks).filter(([name, v]) => (failing ? failing.includes(name) : !GOOD_CHECKS.has(v)));

function _checks(body: Body): Record<string, string> {
  const checks: Record<string, string> = {};
  const given = body.checks;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) return checks;
  for (const [key, value] of Object.entries(given)) if (typeof value === 'string') checks[key] = value;
  return checks;
}

/** `checks: database=disconnected` — the failing ones, or all of them when none is recognisably failing. */
function _checksLine(body: Body): string[] {
  const checks = body.checks;
  if (typeof checks !== 'object' || checks === null || Array.isArray(checks)) return [];
  const entries = Object.entries(checks as Record<string, unknown>);
  if (entries.length === 0) return [];
  const judged = judgeChecks(checks as Record<string, unknown>, body.details);
  const failing = entries.filter(([name]) => judged[name]!.ok === false);
  const shown = (failing.length ? failing : entries).map(([k, v]) => `${k}=${typeof v === 'string' ? v : _json(v)}`);
  return [`checks: ${shown.join(', ')}`];
}

/** `answered by release X, expected Y`, or null when the release that answered is the one expected. */
function _release(body: Body, expected: string): string | null {
  const version = body.version;
  if (typeof version === 'string' && sameRelease(version, expected)) return null;
  if (version === undefined) return `answered by no release (the body has no version), expected ${expected}`;
  // A version with spaces or control characters is quoted, so the reason stays one line and unambiguous.
  const plain = typeof version === 'string' && /^[\x21-\x7e]{1,60}$/.test(version);
  const shown = plain ? version : typeof version === 'string' ? _json(_excerptOf(version, 60)) : _show(version);
  return `answered by release ${shown}, expected ${expected}`;
}

const _excerptOf = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
const _statusLine = (res: Answer) => `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
const _bodyExcerpt = (res: Answer) => (res.body.trim() ? [`body: ${_excerpt(res.body)}`] : []);
const _excerpt = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return '(empty)';
  return JSON.stringify(flat.length > 80 ? `${flat.slice(0, 80)}…` : flat);
};
// JSON.stringify writes a number too large for a double (`1e400`, parsed as Infinity) as null: name it instead.
const _json = (value: unknown) =>
  typeof value === 'number' && !Number.isFinite(value) ? String(value) : JSON.stringify(value);
const _show = (value: unknown) => {
  if (value === undefined) return 'missing';
  if (typeof value === 'number' && !Number.isFinite(value)) return `${value} (a non-finite number)`;
  const text = _json(value);
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return `${text.length > 40 ? `${text.slice(0, 40)}…` : text} (${type})`;
};
