// The release a service reports as `version` (docs/contract.md#release-ids): RELEASE_ID, else the checkout's short
// commit, else `unknown`; one rule for what a release id may be, shared by the services and the smoke.
import { execFileSync } from 'node:child_process';
import { ConfigError } from './config-error.ts';

/** A Docker tag's length bound: a commit (40 hex), an image tag or a version fits; a pasted log line does not. */
export const MAX_RELEASE_ID = 128;
// A Docker tag's characters, plus `+` (semver build metadata): nothing a header, a log or a shell would mangle.
const RELEASE_ID = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/** Why `value` is not a release id, in words; undefined when it is one. */
export function releaseIdProblem(value: string): string | undefined {
  if (value === '') return 'it is empty';
  if (value.length > MAX_RELEASE_ID) return `it is ${value.length} characters long, at most ${MAX_RELEASE_ID}`;
  if (!RELEASE_ID.test(value)) return 'use letters, digits and . _ + - only, starting with a letter or digit';
  return undefined;
}

/** A release id as quoted in an error: at most 40 characters, control characters escaped (JSON's quoting). */
export const showReleaseId = (value: string) => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

/**
 * RELEASE_ID (blank counts as unset, as compose's `${RELEASE_ID:-dev}` and CI templates leave it), else what
 * `checkout()` finds, else `unknown`. A RELEASE_ID that is not a release id is a ConfigError: a service that cannot
 * say which release it is refuses to start rather than report something else.
 */
export function readReleaseId(
  env: Record<string, string | undefined>,
  checkout: () => string | undefined = () => undefined,
): string {
  const given = env.RELEASE_ID?.trim();
  if (!given) return checkout() ?? 'unknown';
  const problem = releaseIdProblem(given);
  if (problem) throw new ConfigError(`RELEASE_ID=${showReleaseId(given)} is not valid: ${problem}`);
  return given;
}

/** The short commit (12 hex) of the git checkout `dir` is in; undefined outside one or without git. */
export function checkoutCommit(dir: string): string | undefined {
  try {
    const out = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    }).trim();
    return /^[0-9a-f]{12,40}$/.test(out) ? out : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the release that answered is the one expected. A commit matches its own abbreviation (a workflow's full
 * `github.sha` against a checkout's 12-hex short commit), so both being hex of 7 or more and one a prefix counts.
 */
export function sameRelease(answered: string, expected: string): boolean {
  if (answered === expected) return true;
  const hex = /^[0-9a-f]{7,40}$/;
  if (!hex.test(answered) || !hex.test(expected)) return false;
  return answered.startsWith(expected) || expected.startsWith(answered);
}
