// The trailer's command line: one option table that the strict parser (tools/parse-command-line.ts) and the usage
// (tools/usage.ts) both read; a mistake is a one-line CLIError (exit 2).
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { CLIError } from '../../tools/cli-error.ts';
import { parseCommandLine } from '../../tools/parse-command-line.ts';
import { projectRoot as root } from '../../tools/project-root.ts';
import { parserOptions, renderUsage, type OptionDoc } from '../../tools/usage.ts';
import { BLOCKED_LABEL } from './line.ts';

const NAME = 'npx tsx smoke/trailer.ts';
export const COMPOSE_FILES = ['compose.yaml', 'compose.yml', 'docker-compose.yaml', 'docker-compose.yml'];
const DEFAULTS = {
  waitTimeoutS: 300,
  artifacts: 'smoke-artifacts/trailer',
  probeTimeoutMs: 15_000,
  baselineTimeoutS: 300,
} as const;

export const trailerArgs = {
  issue: { type: 'string', hint: 'n', description: `on FAIL, label this issue ${BLOCKED_LABEL} through gh` },
  'label-regressions-only': {
    type: 'boolean',
    description: 'with --issue, leave the label off a FAIL the parent commit shares (the parent failed too)',
  },
  'baseline-timeout': {
    type: 'string',
    hint: 's',
    description: "on FAIL, seconds to smoke the parent commit when it has no evidence (0: don't)",
    default: DEFAULTS.baselineTimeoutS,
  },
  'local-stack': {
    type: 'boolean',
    description: "when compose cannot run, also run the local stack's smoke (npm start -- --once)",
  },
  'compose-file': {
    type: 'string',
    hint: 'file',
    description: 'the compose file',
    default: `the first of ${COMPOSE_FILES.join(', ')} in the project`,
  },
  'wait-timeout': {
    type: 'string',
    hint: 's',
    description: 'seconds compose waits for the containers to be healthy',
    default: DEFAULTS.waitTimeoutS,
  },
  frontend: { type: 'string', hint: 'url', description: 'probe this frontend instead of the port the stack published' },
  backend: { type: 'string', hint: 'url', description: 'probe this backend instead of the port the stack published' },
  artifacts: {
    type: 'string',
    hint: 'dir',
    description: "the smoke's screenshot directory",
    default: DEFAULTS.artifacts,
  },
  timeout: {
    type: 'string',
    hint: 'ms',
    description: "the smoke's per-probe timeout",
    default: DEFAULTS.probeTimeoutMs,
  },
} as const satisfies Record<string, OptionDoc>;

export const USAGE = renderUsage({
  about: `Print the commit's smoke trailer, smoke: PASS|FAIL|SKIPPED — <detail>, or check a message for one (${NAME})`,
  usage: [`${NAME} [OPTIONS]`, `${NAME} check <commit-message-file>`, `${NAME} verify <rev>`],
  options: trailerArgs,
  footer: [
    'Exit codes: 0 a trailer was printed (whatever it says), 2 none could be (a bad argument); check: 0 the message',
    'ends with one good trailer, 1 it does not, 2 the file cannot be read; verify: 0 the trailer is bound to the',
    "commit's tree and its evidence agrees, 1 it is not, 2 it cannot tell.",
  ],
});

export interface ProduceOptions {
  command: 'produce';
  issue?: string;
  /** With `issue`: no label when the parent failed too. */
  labelRegressionsOnly: boolean;
  baselineTimeoutS: number;
  localStack: boolean;
  composeFile?: string;
  waitTimeoutS: number;
  /** Probe these instead of the ports the trailer's own stack publishes (see compose.ts). */
  frontend?: string;
  backend?: string;
  artifacts: string;
  probeTimeoutMs: number;
}

export type TrailerArgs =
  ProduceOptions | { command: 'check'; file: string } | { command: 'verify'; rev: string } | { command: 'help' };

export function parseTrailerArgs(argv: string[]): TrailerArgs {
  let parsed;
  try {
    parsed = parseCommandLine({ args: argv, allowPositionals: true, options: parserOptions(trailerArgs) });
  } catch (error) {
    // Asking for help wins over any other mistake on the same line, as in the smoke.
    if (argv.includes('--help') || argv.includes('-h')) return { command: 'help' };
    throw error;
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help' };
  if (positionals[0] === 'check') {
    if (positionals.length !== 2) throw new CLIError('check takes exactly one argument: the commit message file');
    return { command: 'check', file: positionals[1]! };
  }
  if (positionals[0] === 'verify') {
    if (positionals.length !== 2) throw new CLIError('verify takes exactly one argument: a commit (HEAD, a hash)');
    return { command: 'verify', rev: positionals[1]! };
  }
  if (positionals.length > 0)
    throw new CLIError(`unexpected argument "${positionals[0]}" (the subcommands are check and verify)`);
  if (values.issue !== undefined && !/^[1-9]\d{0,9}$/.test(values.issue)) {
    throw new CLIError(`--issue ${values.issue} is not valid: expected an issue number such as 42`);
  }
  const composeFile = values['compose-file'];
  if (composeFile !== undefined && !existsSync(composeFile))
    throw new CLIError(`--compose-file ${composeFile} does not exist`);
  return {
    command: 'produce',
    ...(values.issue ? { issue: values.issue } : {}),
    labelRegressionsOnly: values['label-regressions-only'] === true,
    baselineTimeoutS: whole(
      '--baseline-timeout',
      values['baseline-timeout'] ?? String(DEFAULTS.baselineTimeoutS),
      0,
      3600,
    ),
    localStack: values['local-stack'] === true,
    ...(composeFile ? { composeFile: isAbsolute(composeFile) ? composeFile : join(process.cwd(), composeFile) } : {}),
    waitTimeoutS: whole('--wait-timeout', values['wait-timeout'] ?? String(DEFAULTS.waitTimeoutS), 1, 3600),
    ...(values.frontend !== undefined ? { frontend: url('--frontend', values.frontend) } : {}),
    ...(values.backend !== undefined ? { backend: url('--backend', values.backend) } : {}),
    artifacts: values.artifacts ?? join(root, DEFAULTS.artifacts),
    probeTimeoutMs: whole('--timeout', values.timeout ?? String(DEFAULTS.probeTimeoutMs), 1, 600_000),
  };
}

function whole(name: string, raw: string, min: number, max: number): number {
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max))
    throw new CLIError(`${name} ${raw} is not valid: expected a whole number from ${min} to ${max}`);
  return value;
}

function url(name: string, raw: string): string {
  try {
    if (['http:', 'https:'].includes(new URL(raw).protocol)) return raw;
  } catch {
    /* reported below */
  }
  throw new CLIError(`${name} ${raw} is not valid: expected an http(s) URL such as http://localhost:3001`);
}
