// The automated change agent's commit trailer: prints one line `smoke: <PASS|FAIL|SKIPPED> — <detail>`, or checks
// one.
//
//   npx tsx smoke/trailer.ts [--issue N] [--local-stack] ...   exit 0 with a trailer, 2 without one
//   npx tsx smoke/trailer.ts check <commit-message-file>      exit 0 if it ends with one good trailer, else 1
import { readFile } from 'node:fs/promises';
import { CLIError } from '../tools/cli-error.ts';
import { parseTrailerArgs, USAGE } from './trailer/args.ts';
import { checkMessage } from './trailer/check.ts';
import { formatTrailer } from './trailer/format.ts';
import { labelBlocked } from './trailer/label.ts';
import { produceTrailer } from './trailer/produce.ts';

const warn = (line: string) => process.stderr.write(`trailer: ${line}\n`);

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseTrailerArgs(argv);
  } catch (error) {
    // A bad argument is one line and a pointer to the usage, as in every tool here; never the whole usage.
    if (error instanceof CLIError && !/--help/.test(error.message))
      throw new CLIError(`${error.message} (run with --help for the usage)`, { exitCode: error.exitCode });
    throw error;
  }
  if (args.command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.command === 'check') {
    const text = await readFile(args.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new CLIError(`cannot read ${args.file}: ${error.code ?? error.message}`);
    });
    const reason = checkMessage(text);
    if (reason === undefined) return 0;
    process.stderr.write(`smoke trailer check: ${reason}\n`);
    return 1;
  }
  const trailer = await produceTrailer(args, process.env, warn);
  process.stdout.write(`${formatTrailer(trailer)}\n`);
  if (trailer.verdict === 'FAIL' && args.issue) await labelBlocked(args.issue, process.env, warn);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    if (error instanceof CLIError) warn(error.message);
    else warn(`no trailer produced: ${(error as Error)?.stack ?? String(error)}`);
    process.exitCode = error instanceof CLIError ? error.exitCode : 2;
  },
);
