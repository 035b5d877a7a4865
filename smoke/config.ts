// The CLI's options, their environment fallbacks and defaults, and their validation into a SmokeConfig.
import { parseArgs } from 'node:util';
import type { ArgsDef } from 'citty';
import { findChromium } from './browser.ts';
import { CLIError } from '../lib/cli-error.ts';
import type { SmokeConfig } from './types.ts';

export const DEFAULTS = {
  frontend: 'http://localhost:3000',
  backend: 'http://localhost:3001',
  artifacts: './smoke-artifacts',
  timeout: 10_000,
} as const;

export const smokeArgs = {
  frontend: { type: 'string', valueHint: 'url', description: `frontend URL (env SMOKE_FRONTEND_URL, default ${DEFAULTS.frontend})` },
  backend: { type: 'string', valueHint: 'url', description: `backend URL (env SMOKE_BACKEND_URL, default ${DEFAULTS.backend})` },
  device: { type: 'string', valueHint: 'url', description: 'device-service URL (no env fallback; device probes run only when given)' },
  artifacts: { type: 'string', valueHint: 'dir', description: `directory for screenshots (default ${DEFAULTS.artifacts})` },
  timeout: { type: 'string', valueHint: 'ms', description: `deadline of each probe attempt in ms (default ${DEFAULTS.timeout})` },
  wait: { type: 'string', valueHint: 'ms', description: 'retry failing probes until they pass or this many ms have passed (default 0: no retries)' },
  json: { type: 'string', valueHint: 'file', description: 'also write the results as JSON to this file' },
  junit: { type: 'string', valueHint: 'file', description: 'also write the results as JUnit XML to this file' },
  strict: { type: 'boolean', description: 'fail LOAD on any console error, uncaught page exception or failed request' },
  sandbox: {
    type: 'boolean',
    description: "keep Chromium's sandbox on (the default; as root it cannot start and is off)",
    negativeDescription: 'run Chromium without its sandbox, only where it cannot start (env SMOKE_NO_SANDBOX=1)',
  },
} as const satisfies ArgsDef;

export type RawOptions = { [K in keyof typeof smokeArgs]?: K extends 'strict' | 'sandbox' ? boolean : string };

const MAX_MS = 2_147_483_647; // the largest delay a Node timer accepts

/**
 * citty accepts anything (unknown flags become values, typos pass silently), so check the raw argv strictly
 * first: an unknown option or a missing value is a configuration error, exit 2.
 */
export function checkRawArgs(rawArgs: string[]): void {
  const options = Object.fromEntries(Object.entries(smokeArgs).map(([name, def]) => [name, { type: def.type }]));
  try {
    // citty reads --no-sandbox as sandbox=false; node's parser needs it spelled out.
    const extra = { help: { type: 'boolean', short: 'h' }, 'no-sandbox': { type: 'boolean' } } as const;
    parseArgs({ args: rawArgs, options: { ...options, ...extra }, strict: true, allowPositionals: false });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const quoted = /'([^']+)'/.exec(message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new CLIError(`unknown option ${quoted} (run with --help to list the options)`);
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new CLIError(`unexpected argument "${quoted}" (options take the form --name value)`);
    const flag = /'(--?[a-z]+)/.exec(message)?.[1] ?? 'an option';
    if (/does not take an argument/.test(message)) throw new CLIError(`${flag} takes no value`);
    if (/argument missing|ambiguous/.test(message)) throw new CLIError(`${flag} needs a value (write ${flag}=-x for one starting with "-")`);
    throw new CLIError(message.split('. ')[0]!.replace(/\.$/, ''));
  }
}

export function resolveConfig(options: RawOptions, env: NodeJS.ProcessEnv = process.env): SmokeConfig {
  const chromePath = (() => {
    try {
      return findChromium(env);
    } catch (error) {
      throw new CLIError((error as Error).message, { cause: error });
    }
  })();
  return {
    frontend: _url(options.frontend, '--frontend', env.SMOKE_FRONTEND_URL, 'SMOKE_FRONTEND_URL', DEFAULTS.frontend),
    backend: _url(options.backend, '--backend', env.SMOKE_BACKEND_URL, 'SMOKE_BACKEND_URL', DEFAULTS.backend),
    device: options.device === undefined ? null : _url(options.device, '--device'),
    artifacts: _nonEmpty(options.artifacts, '--artifacts') ?? DEFAULTS.artifacts,
    timeout: _ms(options.timeout, '--timeout', 1) ?? DEFAULTS.timeout,
    wait: _ms(options.wait, '--wait', 0) ?? 0,
    json: _nonEmpty(options.json, '--json') ?? null,
    junit: _nonEmpty(options.junit, '--junit') ?? null,
    strict: options.strict === true,
    chromePath,
    noSandbox: options.sandbox === false ? '--no-sandbox' : _sandboxOff(env.SMOKE_NO_SANDBOX) ? 'SMOKE_NO_SANDBOX=1' : null,
  };
}

/** SMOKE_NO_SANDBOX: 1/true turns the sandbox off, 0/false/unset keeps it; anything else is an error, not a guess. */
function _sandboxOff(value: string | undefined): boolean {
  const v = value?.trim().toLowerCase() ?? '';
  if (v === '1' || v === 'true') return true;
  if (v === '' || v === '0' || v === 'false') return false;
  throw new CLIError(`SMOKE_NO_SANDBOX="${value}" is not valid: set it to 1 (or true) to run Chromium without its sandbox, 0 (or false) or unset to keep it`);
}

const EXAMPLES: Record<string, string> = { '--frontend': DEFAULTS.frontend, '--backend': DEFAULTS.backend, '--device': 'http://localhost:3003' };

function _url(given: string | undefined, flag: string, fromEnv?: string, envName?: string, fallback?: string): string {
  const example = `expected e.g. ${EXAMPLES[flag]}`;
  // An empty variable (common in CI templates) counts as unset.
  const [value, source] = given !== undefined ? [given, flag] : fromEnv ? [fromEnv, envName!] : [fallback!, 'default'];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CLIError(`${source} "${value}" is not a valid URL (${example})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CLIError(`${source} "${value}" must be an http:// or https:// URL (${example})`);
  }
  if (!url.hostname) throw new CLIError(`${source} "${value}" has no host`);
  return url.href;
}

function _ms(value: string | undefined, flag: string, min: 0 | 1): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (n > MAX_MS) {
    throw new CLIError(`${flag} must be at most ${MAX_MS} milliseconds (about 24.8 days, the longest a timer waits), got "${value}"`);
  }
  if (!Number.isSafeInteger(n) || n < min) {
    const what = min === 1 ? 'a positive' : 'a non-negative';
    throw new CLIError(`${flag} must be ${what} whole number of milliseconds, got "${value}"`);
  }
  return n;
}

function _nonEmpty(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (!value.trim()) throw new CLIError(`${flag} needs a non-empty value`);
  return value;
}
