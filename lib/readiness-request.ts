// How a readiness request asks for its form: `?verbose` (plain text lines) or `Accept: application/health+json`
// (the IETF health-check draft's shape); anything else gets the default JSON.

export type ReadinessForm = 'json' | 'verbose' | 'health+json';

export const HEALTH_JSON = 'application/health+json';
// The cheap test first: most probes send no Accept, or `*/*`, and skip the parse (media types are case-insensitive).
const HEALTH_JSON_NAMED = /health\+json/i;

/** A request the routes answer with 400: the one line they say. */
export interface FormProblem {
  problem: string;
}

/**
 * The form asked for. `query` is the URL's query without the `?` (empty when none); `accept` the Accept header.
 * `?verbose` wins over Accept: it is the more specific request (Kubernetes' `/readyz?verbose`).
 */
export function readinessForm(query: string, accept: string | null | undefined): ReadinessForm | FormProblem {
  if (query) {
    const verbose = verboseValue(query);
    if (verbose !== undefined) {
      const value = verbose.toLowerCase();
      if (value === '' || value === '1' || value === 'true') return 'verbose';
      if (value !== '0' && value !== 'false') return { problem: badVerbose(verbose) };
    }
  }
  return accept && HEALTH_JSON_NAMED.test(accept) && prefersHealthJson(accept) ? 'health+json' : 'json';
}

function badVerbose(value: string): string {
  const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return `verbose=${shown} is not valid: use ?verbose (or verbose=1, verbose=true), or verbose=0 or false for JSON`;
}

/** The last `verbose` parameter's value (`?verbose` alone is ''), or undefined when there is none. */
function verboseValue(query: string): string | undefined {
  let found: string | undefined;
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=');
    const name = equals === -1 ? pair : pair.slice(0, equals);
    if (name !== 'verbose') continue;
    const raw = equals === -1 ? '' : pair.slice(equals + 1);
    try {
      found = decodeURIComponent(raw.replace(/\+/g, ' '));
    } catch {
      found = raw; // not valid percent-encoding: shown as it came, and refused
    }
  }
  return found;
}

/**
 * Whether the client names `application/health+json` with a weight at least that of anything the default JSON
 * satisfies (`application/json`, `application/*`, `*\/*`): `application/json;q=1, application/health+json;q=0.5`
 * keeps the default. RFC 9110 §12.5.1: a missing `q` is 1; `q=0` means "not acceptable".
 */
export function prefersHealthJson(accept: string): boolean {
  let health = 0;
  let json = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = weight(params);
    if (type === HEALTH_JSON) health = Math.max(health, q);
    else if (type === 'application/json' || type === 'application/*' || type === '*/*') json = Math.max(json, q);
  }
  return health > 0 && health >= json;
}

function weight(params: string[]): number {
  const q = params.find((param) => param.startsWith('q='));
  if (q === undefined) return 1;
  const value = Number(q.slice(2));
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : 0;
}
