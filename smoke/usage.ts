// The smoke CLI's --help text, rendered from its option table (config.ts) so that it cannot drift from the parser.
import { smokeArgs, type SmokeOption } from './config.ts';
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

export function renderUsage(options: Record<string, SmokeOption> = smokeArgs, command = CHECKOUT_NAME): string {
  const rows = Object.entries(options).map(([name, option]) => {
    return [`--${name}${option.hint ? `=<${option.hint}>` : ''}`, describe(option)] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return [
    `${ABOUT} (${command})`,
    '',
    `USAGE ${command} [OPTIONS]`,
    '',
    'OPTIONS',
    '',
    // Flags right-aligned so that the descriptions start in one column.
    ...rows.map(([flag, text]) => `  ${flag.padStart(width)}    ${text}`),
    '',
    '',
    `Exit codes: ${EXIT_PASS} all probes passed, ${EXIT_FAIL} one or more probes failed, ` +
      `${EXIT_ERROR} the run could not happen.`,
  ].join('\n');
}

/** The description, then its environment fallback, default and note in one pair of parentheses. */
function describe({ description, env, default: fallback, note }: SmokeOption): string {
  const extra = [env && `env ${env}`, fallback !== undefined && `default ${fallback}`, note].filter(Boolean).join(', ');
  return extra ? `${description} (${extra})` : description;
}
