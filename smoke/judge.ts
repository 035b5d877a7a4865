// Judges a health or readiness response against the spec: the reasons it fails, one line each (none: it passed).
import type { HttpResponse } from '../lib/http-get.ts';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
// Check values that mean "this dependency is fine"; any other value is shown as a failing check.
const GOOD_CHECKS = new Set(['connected', 'emulator', 'ok', 'ready', 'up', 'open', 'healthy']);

type Body = Record<string, unknown>;

export function judgeHealth(res: HttpResponse): string[] {
  if (res.status !== 200) return [_statusLine(res), ..._bodyExcerpt(res)];
  const parsed = _parseObject(res);
  if (typeof parsed === 'string') return [parsed];
  const wrong = [
    _expectValue(parsed, 'status', 'ok'),
    _expectIsoTime(parsed, 'timestamp'),
    _expectType(parsed, 'uptime', 'number'),
    _expectType(parsed, 'environment', 'string'),
  ].filter((x): x is string => x !== null);
  return wrong.length ? [`wrong body: ${wrong.join('; ')}`] : [];
}

export function judgeReady(res: HttpResponse): string[] {
  const parsed = _parseObject(res);
  if (res.status !== 200) {
    const details = typeof parsed === 'string' ? _bodyExcerpt(res) : _checksLine(parsed);
    return [_statusLine(res), ...details];
  }
  if (typeof parsed === 'string') return [parsed];
  const wrong = [_expectValue(parsed, 'status', 'ready'), _expectChecks(parsed)].filter((x): x is string => x !== null);
  return wrong.length ? [`wrong body: ${wrong.join('; ')}`, ..._checksLine(parsed)] : [];
}

function _parseObject(res: HttpResponse): Body | string {
  const type = String(res.headers['content-type'] ?? 'no content-type').split(';')[0];
  let value: unknown;
  try {
    value = JSON.parse(res.body);
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
  const ok = type === 'number' ? typeof value === 'number' && Number.isFinite(value) : typeof value === 'string';
  return ok ? null : `${key} is ${_show(value)}, expected a ${type}`;
}

function _expectIsoTime(body: Body, key: string): string | null {
  const value = body[key];
  if (typeof value === 'string' && ISO_8601.test(value) && !Number.isNaN(Date.parse(value))) return null;
  return `${key} is ${_show(value)}, expected an ISO 8601 date-time string`;
}

function _expectChecks(body: Body): string | null {
  const checks = body.checks;
  if (typeof checks === 'object' && checks !== null && !Array.isArray(checks)) return null;
  return `checks is ${_show(checks)}, expected an object`;
}

/** `checks: database=disconnected` — the failing ones, or all of them when none is recognisably failing. */
function _checksLine(body: Body): string[] {
  const checks = body.checks;
  if (typeof checks !== 'object' || checks === null || Array.isArray(checks)) return [];
  const entries = Object.entries(checks as Record<string, unknown>);
  if (entries.length === 0) return [];
  const failing = entries.filter(([, v]) => !(typeof v === 'string' && GOOD_CHECKS.has(v)));
  const shown = (failing.length ? failing : entries).map(
    ([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
  );
  return [`checks: ${shown.join(', ')}`];
}

const _statusLine = (res: HttpResponse) => `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
const _bodyExcerpt = (res: HttpResponse) => (res.body.trim() ? [`body: ${_excerpt(res.body)}`] : []);
const _excerpt = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return '(empty)';
  return JSON.stringify(flat.length > 80 ? `${flat.slice(0, 80)}…` : flat);
};
const _show = (value: unknown) => {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value);
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return `${text.length > 40 ? `${text.slice(0, 40)}…` : text} (${type})`;
};
