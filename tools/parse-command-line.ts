// The one way the command-line tools read their arguments: node:util parseArgs, always strict, its errors turned
// into a one-line CLIError (exit 2) that names the offending argument and what to do instead.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CLIError } from './cli-error.ts';

// The return type is spelled out for the package's declarations, which cannot name parseArgs' internal types.
export function parseCommandLine<const T extends Omit<ParseArgsConfig, 'strict'>>(
  config: T,
): ReturnType<typeof parseArgs<T & { strict: true }>> {
  try {
    return parseArgs({ ...config, strict: true as const });
  } catch (error) {
    throw toCLIError(error as NodeJS.ErrnoException);
  }
}

// node's messages are sentences for developers ("Option '--json' argument is ambiguous.\nDid you forget…"); the
// argument they quote is all we keep.
function toCLIError({ code, message }: NodeJS.ErrnoException): CLIError {
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return new CLIError(`unknown option ${quoted} (run with --help to list the options)`, { pointsToUsage: true });
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    return new CLIError(`unexpected argument "${quoted}" (options take the form --name value)`);
  }
  const flag = /'(--?[a-z][a-z-]*)/.exec(message)?.[1] ?? 'an option';
  if (/does not take an argument/.test(message)) return new CLIError(`${flag} takes no value`);
  if (/argument missing|ambiguous/.test(message))
    return new CLIError(`${flag} needs a value (write ${flag}=-x for one starting with "-")`);
  return new CLIError(message.split('\n')[0]!.split('. ')[0]!.replace(/\.$/, ''));
}
