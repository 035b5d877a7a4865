// `npm start`: the whole system on this machine — database, backend, device (emulator), frontend — then the smoke's
// verdict.
//
//   npm start              keeps running until Ctrl-C or SIGTERM, then stops every child
//   npm start -- --once    stops after the smoke and exits with the smoke's exit code
// Exit codes: 0/1/2 the smoke's (pass / a probe failed / smoke error), 3 the stack did not come up or a
// service stopped on its own, 2 bad arguments or settings, 130/143 interrupted by SIGINT/SIGTERM.
import { CLIError, EXIT_USAGE, pointToUsage } from '../../tools/cli-error.ts';
import { ConfigError } from '../../lib/config-error.ts';
import { parseCommandLine } from '../../tools/parse-command-line.ts';
import { SIGNAL_EXIT_CODES } from '../../tools/signal-exit.ts';
import { killGroupsNow } from './child.ts';
import { readStackConfig } from './config.ts';
import { EXIT_STACK, stackReport } from './error.ts';
import { createStack } from './run.ts';

const USAGE =
  'usage: npm start [-- --once]   (settings: BACKEND_PORT, DEVICE_PORT, FRONTEND_PORT, MONGO_PORT, ' +
  'MONGODB_URI, HOST, STACK_READY_TIMEOUT_MS, SMOKE_TIMEOUT_MS, SMOKE_ARTIFACTS, SMOKE_JSON)';
const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

function fail(message: string, code: number): never {
  err(message);
  process.exit(code);
}

let args;
try {
  ({ values: args } = parseCommandLine({
    options: { once: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  }));
} catch (error) {
  if (!(error instanceof CLIError)) throw error;
  // One line, as every tool here: the usage is one --help away.
  fail(`stack: ${pointToUsage(error, 'npm start -- --help for the usage').message}`, error.exitCode);
}
if (args.help) {
  out(USAGE);
  process.exit(0);
}
const once = args.once === true;

let config;
try {
  config = readStackConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) fail(`stack: ${error.message}`, EXIT_USAGE);
  throw error;
}

const colour = process.stdout.isTTY === true && !process.env.NO_COLOR;
const stack = createStack(config, process.env, { out, err, colour });
let stopping = false;

async function stop(code: number, why?: string): Promise<never> {
  if (stopping) return new Promise<never>(() => {});
  stopping = true;
  if (why) err(why);
  const clean = await stack.down();
  if (!clean) err('stack: some children did not stop cleanly (see their lines above)');
  out(`stack: stopped (exit ${code})`);
  process.exit(code);
}

for (const [signal, code] of SIGNAL_EXIT_CODES) {
  process.on(signal, () => {
    if (stopping) return;
    out(`stack: ${signal} received, stopping every child`);
    void stop(once ? code : 0);
  });
}
// If the stack itself crashes, its children must not outlive it.
process.on('exit', () => killGroupsNow(stack.children));

try {
  const started = Date.now();
  const urls = await stack.up();
  if (stopping) await new Promise(() => {});
  out(`stack: all four parts ready in ${((Date.now() - started) / 1000).toFixed(1)} s; running the smoke`);
  const code = await stack.smoke();
  if (once) await stop(code);
  if (stopping) await new Promise(() => {});
  out(
    `stack: running (smoke exit ${code}) — frontend ${urls.frontend}, backend ${urls.backend}, ` +
      `device ${urls.device}; Ctrl-C to stop`,
  );
  const crashed = await stack.firstExit();
  if (!stopping) await stop(EXIT_STACK, stackReport(crashed));
} catch (error) {
  if (stopping) await new Promise(() => {});
  const report =
    error instanceof CLIError
      ? stackReport(error)
      : `stack: unexpected error\n${(error as Error)?.stack ?? String(error)}`;
  await stop(EXIT_STACK, report);
}
