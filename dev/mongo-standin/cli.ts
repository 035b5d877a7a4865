// The stand-in's command line: parses its options, starts the server and stops it on SIGTERM/SIGINT.
import { CLIError } from '../../tools/cli-error.ts';
import { ConfigError } from '../../lib/config-error.ts';
import { parsePort } from '../../lib/env.ts';
import { parseCommandLine } from '../../tools/parse-command-line.ts';
import { runMain } from '../../lib/run-main.ts';
import { startMongoStandin } from './server.ts';

const USAGE = [
  'usage: mongo-standin [--port N] [--host H] [--report-streams] [--hello-delay-ms N]',
  '  a MongoDB wire-protocol stand-in for tests and `npm start`: it keeps data in memory only, lost when it stops',
  '  --port N          port to listen on (default 0: any free port)',
  '  --host H          address to listen on (default 127.0.0.1)',
  "  --report-streams  print a line when a client's streaming hello starts or ends on a connection",
  "  --hello-delay-ms N  answer the driver's monitor N ms late, everything else at once (a busy server)",
].join('\n');

async function main(): Promise<void> {
  // A mistake on the command line is a start-up failure like any other here: exit 1 through runMain.
  let values;
  try {
    ({ values } = parseCommandLine({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'report-streams': { type: 'boolean' },
        'hello-delay-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw error instanceof CLIError ? new ConfigError(error.message) : error;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // Read as the services read PORT: `--port 0x10` once listened on port 16, and `--port=` on any free port.
  const port = values.port === undefined ? 0 : parsePort(values.port);
  if (port === undefined) {
    throw new ConfigError(`--port must be an integer from 0 to 65535, got "${values.port}"`);
  }
  const helloDelayMs = parseHelloDelay(values['hello-delay-ms']);
  // Tests that kill the process wait for "stream open" first: from then on the driver notices the kill at once.
  const onStream = values['report-streams']
    ? ({ connectionId, open }: { connectionId: number; open: boolean }) =>
        process.stdout.write(`stream ${open ? 'open' : 'closed'} on connection ${connectionId}\n`)
    : undefined;
  const standin = await startMongoStandin({ port, host: values.host ?? '127.0.0.1', onStream, helloDelayMs }).catch(
    (error: Error) => {
      throw new ConfigError(error.message, { cause: error });
    },
  );
  process.stdout.write(`mongo stand-in listening on ${standin.url} (a stand-in: it keeps data in memory only)\n`);
  const stop = () => void standin.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** Whole milliseconds, decimal digits only (as --port is read: no `0x10`, `1e3` or empty value). */
function parseHelloDelay(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^\d{1,7}$/.test(value)) {
    throw new ConfigError(`--hello-delay-ms must be a whole number of milliseconds, got "${value}"`);
  }
  return Number(value);
}

runMain('mongo stand-in', main, { jsonLog: false });
