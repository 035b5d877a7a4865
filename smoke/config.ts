// The CLI's options (one table: the parser, the usage text and the environment fallbacks all read it), and their
// validation into a SmokeConfig.
import { readFileSync } from 'node:fs';
import { findChromium } from './browser.ts';
import { readCaFile } from './ca-file.ts';
import { CLIError } from '../tools/cli-error.ts';
import { releaseIdProblem, showReleaseId } from '../lib/release-id.ts';
import { parseCommandLine } from '../tools/parse-command-line.ts';
import { parserOptions, type OptionDoc } from '../tools/usage.ts';
import type { SmokeConfig } from './types.ts';

export const DEFAULTS = {
  frontend: 'http://localhost:3000',
  backend: 'http://localhost:3001',
  artifacts: './smoke-artifacts',
  timeout: 10_000,
} as const;

/** One row of the option table (tools/usage.ts): the parser reads its type, the usage the rest. */
export type SmokeOption = OptionDoc;

export const smokeArgs = {
  frontend: {
    type: 'string',
    hint: 'url',
    description: 'frontend URL',
    env: 'SMOKE_FRONTEND_URL',
    default: DEFAULTS.frontend,
  },
  backend: {
    type: 'string',
    hint: 'url',
    description: 'backend URL',
    env: 'SMOKE_BACKEND_URL',
    default: DEFAULTS.backend,
  },
  device: {
    type: 'string',
    hint: 'url',
    description: 'device-service URL',
    env: 'SMOKE_DEVICE_URL',
    note: 'no default; device probes run only when given',
  },
  'expect-version': {
    type: 'string',
    hint: 'id',
    description: 'HEALTH fails unless the backend and the device service report this release as their version',
    env: 'SMOKE_EXPECT_VERSION',
    note: 'none: any release passes',
  },
  artifacts: { type: 'string', hint: 'dir', description: 'directory for screenshots', default: DEFAULTS.artifacts },
  timeout: {
    type: 'string',
    hint: 'ms',
    description: 'deadline of each probe attempt in ms',
    default: DEFAULTS.timeout,
  },
  wait: {
    type: 'string',
    hint: 'ms',
    description: 'retry failing probes until they pass or this many ms have passed',
    default: '0: no retries',
  },
  'operator-token-file': {
    type: 'string',
    hint: 'file',
    description: "sign the LOAD probe in with the operator token in this file, to load the page's operator view",
    env: 'SMOKE_OPERATOR_TOKEN_FILE',
    note: 'the token is never printed',
  },
  'ca-file': {
    type: 'string',
    hint: 'file',
    description: "trust exactly this CA (PEM) for https:// probes and for Chromium's page load",
    env: 'SMOKE_CA_FILE',
    note: "none: the system's trusted CAs",
  },
  json: { type: 'string', hint: 'file', description: 'also write the results as JSON to this file' },
  junit: { type: 'string', hint: 'file', description: 'also write the results as JUnit XML to this file' },
  strict: { type: 'boolean', description: 'fail LOAD on any console error, uncaught page exception or failed request' },
  sandbox: {
    type: 'boolean',
    description: "keep Chromium's sandbox on",
    note: 'the default; as root it cannot start and is off',
  },
  'no-sandbox': {
    type: 'boolean',
    description: 'run Chromium without its sandbox, only where it cannot start',
    env: 'SMOKE_NO_SANDBOX=1',
  },
} as const satisfies Record<string, SmokeOption>;

export type RawOptions = {
  [K in Exclude<keyof typeof smokeArgs, 'no-sandbox'>]?: (typeof smokeArgs)[K]['type'] extends 'boolean'
    ? boolean
    : string;
};

export type SmokeArgs = { help: true } | { help: false; options: RawOptions };

// Only the type goes to the parser: a default there would hide whether the option was given (env fallbacks).
const PARSER_OPTIONS = parserOptions(smokeArgs);

/** Parses the argv strictly; an unknown option, a stray argument or a missing value is a CLIError (exit 2). */
export function parseSmokeArgs(argv: string[]): SmokeArgs {
  let values;
  try {
    ({ values } = parseCommandLine({ args: argv, options: PARSER_OPTIONS }));
  } catch (error) {
    // Asking for help wins over any other mistake on the same line: `smoke --bogus --help` shows the usage.
    if (argv.includes('--help') || argv.includes('-h')) return { help: true };
    throw error;
  }
  if (values.help) return { help: true };
  const { help: _, 'no-sandbox': noSandbox, sandbox, ...rest } = values;
  // --no-sandbox wins over --sandbox in either order, as it did before: asking for it anywhere is asking for it.
  const sandboxChoice = noSandbox ? { sandbox: false } : sandbox !== undefined ? { sandbox } : {};
  return { help: false, options: { ...rest, ...sandboxChoice } };
}

const MAX_MS = 2_147_483_647; // the largest delay a Node timer accepts

export function resolveConfig(options: RawOptions, env: NodeJS.ProcessEnv = process.env): SmokeConfig {
  const chromePath = (() => {
    try {
      return findChromium(env);
    } catch (error) {
      throw new CLIError((error as Error).message, { cause: error });
    }
  })();
  return {
    frontend: _url(
      options.frontend,
      '--frontend',
      env[smokeArgs.frontend.env],
      smokeArgs.frontend.env,
      DEFAULTS.frontend,
    ),
    backend: _url(options.backend, '--backend', env[smokeArgs.backend.env], smokeArgs.backend.env, DEFAULTS.backend),
    device: _optionalUrl(options.device, '--device', env[smokeArgs.device.env], smokeArgs.device.env),
    expectVersion: _releaseId(options['expect-version'], env[smokeArgs['expect-version'].env]),
    artifacts: _nonEmpty(options.artifacts, '--artifacts') ?? DEFAULTS.artifacts,
    timeout: _ms(options.timeout, '--timeout', 1) ?? DEFAULTS.timeout,
    wait: _ms(options.wait, '--wait', 0) ?? 0,
    json: _nonEmpty(options.json, '--json') ?? null,
    junit: _nonEmpty(options.junit, '--junit') ?? null,
    strict: options.strict === true,
    operatorToken: _operatorToken(options['operator-token-file'] || env.SMOKE_OPERATOR_TOKEN_FILE || undefined),
    ca: _caFile(options['ca-file'], env.SMOKE_CA_FILE),
    chromePath,
    noSandbox:
      options.sandbox === false ? '--no-sandbox' : _sandboxOff(env.SMOKE_NO_SANDBOX) ? 'SMOKE_NO_SANDBOX=1' : null,
  };
}

/** The first line of the file that is not blank or a `#` comment; an error names the option, never the file's text. */
function _operatorToken(path: string | undefined, read = (file: string) => readFileSync(file, 'utf8')): string | null {
  if (path === undefined) return null;
  let text: string;
  try {
    text = read(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CLIError(`--operator-token-file cannot be read (${code}): give the path of a file holding the token`, {
      cause: error,
    });
  }
  const token = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line !== '' && !line.startsWith('#'));
  if (!token) throw new CLIError('--operator-token-file holds no token: write the operator token into it');
  return token;
}

/** --ca-file, else SMOKE_CA_FILE (blank counts as unset): the CA's PEM text, or null. */
function _caFile(given: string | undefined, fromEnv: string | undefined): string | null {
  if (given !== undefined) return readCaFile(given, `--ca-file ${given}`);
  return fromEnv ? readCaFile(fromEnv, `SMOKE_CA_FILE=${fromEnv}`) : null;
}

/** SMOKE_NO_SANDBOX: 1/true turns the sandbox off, 0/false/unset keeps it; anything else is an error, not a guess. */
function _sandboxOff(value: string | undefined): boolean {
  const v = value?.trim().toLowerCase() ?? '';
  if (v === '1' || v === 'true') return true;
  if (v === '' || v === '0' || v === 'false') return false;
  throw new CLIError(
    `SMOKE_NO_SANDBOX="${value}" is not valid: set it to 1 (or true) to run Chromium without its sandbox, ` +
      '0 (or false) or unset to keep it',
  );
}

const EXAMPLES: Record<string, string> = {
  '--frontend': DEFAULTS.frontend,
  '--backend': DEFAULTS.backend,
  '--device': 'http://localhost:3003',
};

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

/** A URL that may be absent (the device service): null when neither the flag nor its variable gives one. */
function _optionalUrl(given: string | undefined, flag: string, fromEnv: string | undefined, envName: string) {
  return given === undefined && !fromEnv ? null : _url(given, flag, fromEnv, envName);
}

/** `--expect-version`, else SMOKE_EXPECT_VERSION (blank counts as unset), held to the services' release-id rule. */
function _releaseId(given: string | undefined, fromEnv: string | undefined): string | null {
  const [value, source] =
    given !== undefined ? [given.trim(), '--expect-version'] : [fromEnv?.trim() ?? '', smokeArgs['expect-version'].env];
  if (given === undefined && value === '') return null;
  const problem = releaseIdProblem(value);
  if (problem) throw new CLIError(`${source} ${showReleaseId(value)} is not a release id: ${problem}`);
  return value;
}

function _ms(value: string | undefined, flag: string, min: 0 | 1): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (n > MAX_MS) {
    throw new CLIError(
      `${flag} must be at most ${MAX_MS} milliseconds (about 24.8 days, the longest a timer waits), got "${value}"`,
    );
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
