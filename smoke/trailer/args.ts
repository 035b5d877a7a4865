// Parses the trailer's command line; a mistake is a CLIError with a one-line message (exit 2).
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { CLIError } from '../../tools/cli-error.ts';
import { parseCommandLine } from '../../tools/parse-command-line.ts';
import { projectRoot as root } from '../../tools/project-root.ts';

export const USAGE = [
  'usage: npx tsx smoke/trailer.ts [--issue N] [--local-stack] [--compose-file FILE] [--wait-timeout S]',
  '                               [--frontend URL] [--backend URL] [--artifacts DIR] [--timeout MS]',
  '       npx tsx smoke/trailer.ts check <commit-message-file>',
].join('\n');

export interface ProduceOptions {
  command: 'produce';
  issue?: string;
  localStack: boolean;
  composeFile?: string;
  waitTimeoutS: number;
  /** Probe these instead of the ports the trailer's own stack publishes (see compose.ts). */
  frontend?: string;
  backend?: string;
  artifacts: string;
  probeTimeoutMs: number;
}

export type TrailerArgs = ProduceOptions | { command: 'check'; file: string } | { command: 'help' };

export function parseTrailerArgs(argv: string[]): TrailerArgs {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: {
      issue: { type: 'string' },
      'local-stack': { type: 'boolean', default: false },
      'compose-file': { type: 'string' },
      'wait-timeout': { type: 'string', default: '300' },
      frontend: { type: 'string' },
      backend: { type: 'string' },
      artifacts: { type: 'string', default: join(root, 'smoke-artifacts', 'trailer') },
      timeout: { type: 'string', default: '15000' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { command: 'help' };
  if (positionals[0] === 'check') {
    if (positionals.length !== 2) throw new CLIError('check takes exactly one argument: the commit message file');
    return { command: 'check', file: positionals[1]! };
  }
  if (positionals.length > 0)
    throw new CLIError(`unexpected argument "${positionals[0]}" (the only subcommand is check)`);
  if (values.issue !== undefined && !/^[1-9]\d{0,9}$/.test(values.issue)) {
    throw new CLIError(`--issue ${values.issue} is not valid: expected an issue number such as 42`);
  }
  const composeFile = values['compose-file'];
  if (composeFile !== undefined && !existsSync(composeFile))
    throw new CLIError(`--compose-file ${composeFile} does not exist`);
  return {
    command: 'produce',
    ...(values.issue ? { issue: values.issue } : {}),
    localStack: values['local-stack'],
    ...(composeFile ? { composeFile: isAbsolute(composeFile) ? composeFile : join(process.cwd(), composeFile) } : {}),
    waitTimeoutS: whole('--wait-timeout', values['wait-timeout'], 1, 3600),
    ...(values.frontend !== undefined ? { frontend: url('--frontend', values.frontend) } : {}),
    ...(values.backend !== undefined ? { backend: url('--backend', values.backend) } : {}),
    artifacts: values.artifacts,
    probeTimeoutMs: whole('--timeout', values.timeout, 1, 600_000),
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
