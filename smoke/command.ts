// The smoke command: setup (config, artifacts, start Chromium) → run (probes, reports) → cleanup (close Chromium).
import {
  INSTALL_HINT,
  launchBrowser,
  loadPuppeteer,
  NO_USABLE_SANDBOX,
  SANDBOX_HINT,
  type LaunchedBrowser,
} from './browser.ts';
import { prepareArtifacts } from './artifacts.ts';
import { acceptKeyFlag, verifiedLeafKey } from './ca-file.ts';
import { resolveConfig, type RawOptions } from './config.ts';
import { checkOutputPaths } from './output-paths.ts';
import { checkReportPaths, writeReports } from './reports.ts';
import { printFinal, runSmoke, type SmokeIo } from './run.ts';
import { noticeIfSlow } from './wait-notice.ts';
import { CLIError } from '../tools/cli-error.ts';
import { EXIT_FAIL, EXIT_PASS } from './exit-codes.ts';
import type { SmokeConfig } from './types.ts';

export interface SmokeState {
  io: SmokeIo;
  env: NodeJS.ProcessEnv;
  launching?: Promise<LaunchedBrowser>;
  /** A file-system check gave no answer; its call still holds a thread, so the CLI exits without waiting. */
  stuck?: boolean;
}

const LAUNCH_TIMEOUT_MS = 30_000;

/** Runs every probe and writes the reports: EXIT_PASS or EXIT_FAIL; a run that cannot happen throws a CLIError. */
export async function runSmokeCommand(options: RawOptions, state: SmokeState): Promise<number> {
  try {
    const config = await setUp(options, state);
    const summary = await runSmoke(config, browserOf(config, state.launching!), state.io);
    await writeReports(summary, config, state.env, state.io.err);
    printFinal(summary, state.io);
    return summary.ok ? EXIT_PASS : EXIT_FAIL;
  } finally {
    await noticeIfSlow(closeBrowser(state), 'Chromium to close', state.io.err);
  }
}

async function setUp(options: RawOptions, state: SmokeState): Promise<SmokeConfig> {
  const config = resolveConfig(options, state.env);
  // Before any probe runs: without the browser driver no smoke can pass.
  await noticeIfSlow(loadPuppeteer(), 'the browser driver (puppeteer-core) to load', state.io.err);
  await checkOutputPaths(config, state.env); // before anything is written or cleared
  await prepareArtifacts(config.artifacts);
  await checkReportPaths(config);
  // Opting out is said out loud: a run without the sandbox must never look like an ordinary one.
  if (config.noSandbox && process.getuid?.() !== 0)
    state.io.err(`smoke: warning: Chromium runs without its sandbox (${config.noSandbox})`);
  state.launching = launchBrowser({
    executablePath: config.chromePath,
    timeout: LAUNCH_TIMEOUT_MS,
    sandbox: !config.noSandbox,
    extraArgs: await trustArgs(config, state.io),
  });
  state.launching.catch(() => {}); // awaited by the LOAD probe; this only silences an early unhandled rejection
  return config;
}

/**
 * With --ca-file and an https:// frontend: the flag that makes Chromium accept the frontend's certificate, once Node
 * has verified it against the CA. When it cannot be verified, no flag: the page load then fails on its own.
 */
async function trustArgs(config: SmokeConfig, io: SmokeIo): Promise<string[]> {
  if (!config.ca || new URL(config.frontend).protocol !== 'https:') return [];
  const leaf = await verifiedLeafKey(config.frontend, config.ca, config.timeout);
  if ('spki' in leaf) return [acceptKeyFlag(leaf.spki)];
  io.err(`smoke: warning: the frontend's certificate is not trusted by --ca-file (${leaf.problem})`);
  return [];
}

/** The browser for the LOAD probe; a failed launch becomes a one-line CLIError saying what to do. */
function browserOf(config: SmokeConfig, launching: Promise<LaunchedBrowser>) {
  return launching.then(
    (launched) => launched.browser,
    (error: Error) => {
      if (NO_USABLE_SANDBOX.test(error.message)) {
        throw new CLIError(`could not launch Chromium at ${config.chromePath}: ${SANDBOX_HINT}`, { cause: error });
      }
      // Puppeteer's message is several lines; the first plus the browser's own first stderr line say enough.
      const [first = '', ...rest] = error.message.split('\n');
      const said = rest[rest.indexOf('stderr:') + 1]?.trim();
      const why = `${first.replace(/\s+/g, ' ').trim()}${rest.includes('stderr:') && said ? ` (${said})` : ''}`.slice(
        0,
        300,
      );
      throw new CLIError(`could not launch Chromium at ${config.chromePath}: ${why}; ${INSTALL_HINT}`, {
        cause: error,
      });
    },
  );
}

/** Closes Chromium and removes its profile if it was started; never throws (cleanup must not mask the result). */
export async function closeBrowser(state: SmokeState): Promise<void> {
  const launched = await state.launching?.catch(() => undefined);
  await launched?.close().catch(() => {});
}
