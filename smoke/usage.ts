// The smoke CLI's --help text, rendered from its option table (config.ts) so that it cannot drift from the parser.
import { renderUsage, type OptionDoc } from '../tools/usage.ts';
import { smokeArgs } from './config.ts';
import { EXIT_ERROR, EXIT_FAIL, EXIT_PASS } from './exit-codes.ts';

const CHECKOUT_NAME = 'npx tsx smoke/cli.ts';
/** The package's bin, named like the package. */
const PACKAGE_NAME = 'npx service-health-kit';
const ABOUT =
  'Probe backend health and readiness, the device service when given, and load the frontend in headless Chromium';

/** How the running CLI is invoked: the installed package runs compiled JavaScript, this checkout its TypeScript. */
export function commandName(cliUrl: string): string {
  return cliUrl.endsWith('.js') ? PACKAGE_NAME : CHECKOUT_NAME;
}

export function smokeUsage(options: Record<string, OptionDoc> = smokeArgs, command = CHECKOUT_NAME): string {
  return renderUsage({
    about: `${ABOUT} (${command})`,
    usage: [`${command} [OPTIONS]`],
    options,
    footer: [
      `Exit codes: ${EXIT_PASS} all probes passed, ${EXIT_FAIL} one or more probes failed, ` +
        `${EXIT_ERROR} the run could not happen.`,
    ],
  });
}
