// A tool's --help text, rendered from its option table, so that the usage cannot drift from what the parser reads.

/** One option as the table describes it: the parser takes its type, the usage everything else. */
export interface OptionDoc {
  type: 'string' | 'boolean';
  /** Shown as `--name=<hint>` in the usage. */
  hint?: string;
  description: string;
  /** The variable read when the option is absent. */
  env?: string;
  /** What applies when neither the option nor its variable is given, as the usage shows it. */
  default?: string | number;
  /** Anything else the usage says in the same parentheses. */
  note?: string;
}

export interface UsageDoc {
  /** One sentence on what the tool does. */
  about: string;
  /** The command lines it takes, e.g. `npx tsx smoke/cli.ts [OPTIONS]`. */
  usage: string[];
  options: Record<string, OptionDoc>;
  /** Lines after the options: the exit codes. */
  footer: string[];
}

export function renderUsage({ about, usage, options, footer }: UsageDoc): string {
  const rows = Object.entries(options).map(([name, option]) => {
    return [`--${name}${option.hint ? `=<${option.hint}>` : ''}`, describe(option)] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return [
    about,
    '',
    ...usage.map((line, i) => `${i === 0 ? 'USAGE' : '     '} ${line}`),
    '',
    'OPTIONS',
    '',
    // Flags right-aligned so that the descriptions start in one column.
    ...rows.map(([flag, text]) => `  ${flag.padStart(width)}    ${text}`),
    '',
    '',
    ...footer,
  ].join('\n');
}

/** The parser's half of the table: each option's type only, plus -h/--help. */
export function parserOptions<T extends Record<string, OptionDoc>>(options: T) {
  const types = Object.fromEntries(Object.entries(options).map(([name, { type }]) => [name, { type }]));
  return { ...(types as { [K in keyof T]: { type: T[K]['type'] } }), help: { type: 'boolean', short: 'h' } } as const;
}

/** The description, then its environment fallback, default and note in one pair of parentheses. */
function describe({ description, env, default: fallback, note }: OptionDoc): string {
  const extra = [env && `env ${env}`, fallback !== undefined && `default ${fallback}`, note].filter(Boolean).join(', ');
  return extra ? `${description} (${extra})` : description;
}
