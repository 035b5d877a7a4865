// The smoke CLI's --help text, rendered from its option table (config.ts) so that it cannot drift from the parser.
import { renderUsage as render, type OptionDoc } from '../tools/usage.ts';
import { smokeArgs } from './config.ts';
import { EXIT_ERROR, EXIT_FAIL, EXIT_PASS } from './exit-codes.ts';

const NAME = 'npx tsx smoke/cli.ts';
const ABOUT =
  'Probe backend health and readiness, the device service when given, and load the frontend in headless Chromium';

export function renderUsage(options: Record<string, OptionDoc> = smokeArgs): string {
  return render({
    about: `${ABOUT} (${NAME})`,
    usage: [`${NAME} [OPTIONS]`],
    options,
    footer: [
      `Exit codes: ${EXIT_PASS} all probes passed, ${EXIT_FAIL} one or more probes failed, ` +
        `${EXIT_ERROR} the run could not happen.`,
    ],
  });
}
