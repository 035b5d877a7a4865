// Runs a service's main: a configuration mistake prints one line and exits 1; anything else keeps its stack.
import { ConfigError } from './config-error.ts';

export function runMain(name: string, main: () => Promise<unknown>): void {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${name}: ${error.message}\n`);
    } else {
      process.stderr.write(`${name}: unexpected error\n${(error as Error)?.stack ?? String(error)}\n`);
    }
    process.exit(1);
  });
}
