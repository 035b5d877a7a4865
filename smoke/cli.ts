#!/usr/bin/env node
// `npx tsx smoke/cli.ts [options]` in this checkout, `npx service-health-kit [options]` where the package is
// installed (compiled to JavaScript, run by plain node): exit 0 all probes passed, 1 a probe failed, 2 the run
// itself could not happen.
import { colorEnabled, createColors } from './color.ts';
import { closeBrowser, runSmokeCommand, type SmokeState } from './command.ts';
import { parseSmokeArgs, smokeArgs } from './config.ts';
import { gaveNoAnswer } from './fs-answer.ts';
import { commandName, smokeUsage } from './usage.ts';
import { CLIError } from '../tools/cli-error.ts';
import { SIGNAL_EXIT_CODES } from '../tools/signal-exit.ts';
import { redactUrlsIn } from '../lib/redact-url.ts';
import { stackLines } from './format.ts';
import { terminalText } from './terminal-text.ts';
import { EXIT_ERROR, EXIT_PASS } from './exit-codes.ts';

// Why not citty (0.2.2), which the design card names: its runMain ends every error with process.exit(1), but 1
// means "a probe failed" here and a run that could not happen must exit 2; it prints the whole usage before each
// error instead of one line; and its parser is lenient (unknown options and missing values pass). So the smoke,
// like every tool here, parses with node:util parseArgs in strict mode (tools/parse-command-line.ts), renders its
// own usage (usage.ts), and maps errors to exit codes here through CLIError (tools/cli-error.ts).
export async function main(rawArgs: string[], state: SmokeState): Promise<number> {
  try {
    const args = parseSmokeArgs(rawArgs);
    if (args.help) {
      state.io.out(smokeUsage(smokeArgs, commandName(import.meta.url)));
      return EXIT_PASS;
    }
    return await runSmokeCommand(args.options, state);
  } catch (error) {
    if (gaveNoAnswer(error)) state.stuck = true;
    if (error instanceof CLIError) state.io.err(`smoke: ${error.message}`);
    else {
      state.io.err('smoke: unexpected error');
      for (const line of stackLines(String((error as Error)?.stack ?? error))) state.io.err(line);
    }
    return error instanceof CLIError ? error.exitCode : EXIT_ERROR;
  }
}

const state: SmokeState = {
  env: process.env,
  // Every line shows a URL without its password or secret query values: a reason (a redirect's Location), a
  // page issue, a LOAD stack trace (Chromium's message quotes the URL), a rejected --frontend in an error line.
  io: {
    out: (line) => process.stdout.write(`${redactUrlsIn(line)}\n`),
    // stderr has no colour of ours: every control character in a line is someone else's, shown escaped.
    err: (line) => process.stderr.write(`${terminalText(redactUrlsIn(line))}\n`),
    colors: createColors(colorEnabled(process.stdout)),
  },
};

// `smoke ... | head -1` closes the pipe early; that must not turn into a crash with a stack trace.
process.stdout.on('error', () => {});

// Chromium runs in its own process group: close it before leaving on Ctrl+C or a CI cancel.
for (const [signal, code] of SIGNAL_EXIT_CODES) {
  process.once(signal, () => {
    state.io.err(`smoke: interrupted by ${signal}`);
    void closeBrowser(state).finally(() => process.exit(code));
  });
}

const code = await main(process.argv.slice(2), state);
process.exitCode = code;
// A file-system call that never answered still holds a libuv thread (and the event loop) open: leave now.
if (state.stuck) process.exit(code);
// Everything is closed by now; should a stray handle remain, it must not keep CI waiting.
setTimeout(() => process.exit(code), 1000).unref();
