// The smoke command: setup (config, artifacts, start Chromium) → run (probes, reports) → cleanup (close Chromium).
import { defineCommand } from 'citty';
import { INSTALL_HINT, launchBrowser, NO_USABLE_SANDBOX, SANDBOX_HINT, type LaunchedBrowser } from './browser.ts';
import { prepareArtifacts } from './artifacts.ts';
import { resolveConfig, smokeArgs } from './config.ts';
import { checkReportPaths, writeReports } from './reports.ts';
import { printFinal, runSmoke, type SmokeIo } from './run.ts';
import { CLIError } from '../lib/cli-error.ts';
import { EXIT_FAIL, EXIT_PASS } from './exit-codes.ts';
import type { SmokeConfig } from './types.ts';

export interface SmokeState {
  io: SmokeIo;
  env: NodeJS.ProcessEnv;
  config?: SmokeConfig;
  launching?: Promise<LaunchedBrowser>;
  code?: number;
  /** A file-system check gave no answer; its call still holds a thread, so the CLI exits without waiting. */
  stuck?: boolean;
}

const LAUNCH_TIMEOUT_MS = 30_000;

export const smokeCommand = defineCommand({
  meta: {
    name: 'npx tsx smoke/cli.ts',
    description: 'Probe backend health and readiness, the device service when given, and load the frontend in headless Chromium',
  },
  args: smokeArgs,
  async setup({ args, data }) {
    const state = data as SmokeState;
    const { frontend, backend, device, artifacts, timeout, wait, json, junit, strict, sandbox } = args;
    const config = resolveConfig({ frontend, backend, device, artifacts, timeout, wait, json, junit, strict, sandbox }, state.env);
    await prepareArtifacts(config.artifacts);
    await checkReportPaths(config);
    state.config = config;
    // Opting out is said out loud: a run without the sandbox must never look like an ordinary one.
    if (config.noSandbox && process.getuid?.() !== 0) state.io.err(`smoke: warning: Chromium runs without its sandbox (${config.noSandbox})`);
    state.launching = launchBrowser({ executablePath: config.chromePath, timeout: LAUNCH_TIMEOUT_MS, sandbox: !config.noSandbox });
    state.launching.catch(() => {}); // awaited by the LOAD probe; this only silences an early unhandled rejection
  },
  async run({ data }) {
    const { config, launching, io, env } = data as Required<SmokeState>;
    const browser = launching.then(
      (launched) => launched.browser,
      (error: Error) => {
        if (NO_USABLE_SANDBOX.test(error.message)) {
          throw new CLIError(`could not launch Chromium at ${config.chromePath}: ${SANDBOX_HINT}`, { cause: error });
        }
        // Puppeteer's message is several lines; the first plus the browser's own first stderr line say enough.
        const [first = '', ...rest] = error.message.split('\n');
        const said = rest[rest.indexOf('stderr:') + 1]?.trim();
        const why = `${first.replace(/\s+/g, ' ').trim()}${rest.includes('stderr:') && said ? ` (${said})` : ''}`.slice(0, 300);
        throw new CLIError(`could not launch Chromium at ${config.chromePath}: ${why}; ${INSTALL_HINT}`, { cause: error });
      },
    );
    const summary = await runSmoke(config, browser, io);
    await writeReports(summary, config, env, io.err);
    printFinal(summary, io);
    (data as SmokeState).code = summary.ok ? EXIT_PASS : EXIT_FAIL;
  },
  async cleanup({ data }) {
    await closeBrowser(data as SmokeState);
  },
});

/** Closes Chromium and removes its profile if it was started; never throws (cleanup must not mask the result). */
export async function closeBrowser(state: SmokeState): Promise<void> {
  const launched = await state.launching?.catch(() => undefined);
  await launched?.close().catch(() => {});
}
