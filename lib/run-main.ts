// Runs a service's main: a configuration mistake prints one line and exits 1 (outside local mode also as one
// fatal JSON line on stdout); anything else keeps its stack.
import { ConfigError } from './config-error.ts';
import { readEnvironment } from './env.ts';

export interface RunMainOptions {
  /**
   * Also write the fatal error as a pino JSON line on stdout outside local mode, where log pipelines read
   * stdout as JSON and would otherwise lose the one line that explains a crash loop. The frontend writes
   * plain console output (it is not a structured-log emitter) and turns this off.
   */
  jsonLog?: boolean;
  env?: Record<string, string | undefined>;
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
  exit?: (code: number) => void;
}

export function runMain(name: string, main: () => Promise<unknown>, options: RunMainOptions = {}): void {
  main().catch((error: unknown) => reportFatal(name, error, options));
}

/** The human line on stderr; outside local mode also one JSON line on stdout; then exit 1. */
export function reportFatal(
  name: string,
  error: unknown,
  {
    jsonLog = true,
    env = process.env,
    stdout = process.stdout,
    stderr = process.stderr,
    exit = process.exit,
  }: RunMainOptions = {},
): void {
  const known = error instanceof ConfigError;
  if (known) stderr.write(`${name}: ${error.message}\n`);
  else stderr.write(`${name}: unexpected error\n${(error as Error)?.stack ?? String(error)}\n`);
  if (jsonLog && readEnvironment(env) !== 'local') stdout.write(fatalLine(name, error, known));
  exit(1);
}

/**
 * The line pino's `fatal` would write (level 60), built by hand: the MongoDB stand-in's image carries only this
 * file and what it imports, no logger. `code` is the error's code (or its cause's: EADDRINUSE), else its name.
 */
function fatalLine(name: string, error: unknown, known: boolean): string {
  const err = error instanceof Error ? error : new Error(String(error));
  const cause = err.cause as NodeJS.ErrnoException | undefined;
  const code = (err as NodeJS.ErrnoException).code ?? cause?.code ?? err.name;
  // A configuration mistake is explained by its message; only an unexpected error carries its stack.
  const detail = known ? {} : { err: { type: err.name, message: err.message, stack: err.stack } };
  const line = { level: 60, time: Date.now(), pid: process.pid, name, code, ...detail, msg: err.message };
  return `${JSON.stringify(line)}\n`;
}
