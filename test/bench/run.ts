// `npm run bench [-- --quick] [--write FILE] [filter…]`: runs the test/bench/*.bench.ts scenarios and prints one table.
import { readdirSync } from 'node:fs';
import { writeBenchReport } from './report.ts';
import { CLIError } from '../../tools/cli-error.ts';
import { parseCommandLine } from '../../tools/parse-command-line.ts';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchRow, Scenario } from './scenario.ts';

const dir = fileURLToPath(new URL('./', import.meta.url));
const USAGE = 'usage: npm run bench [-- --quick] [--write FILE] [filter…]';
const WRITE_NEEDS_A_FILE = 'bench: --write needs a file, e.g. --write docs/performance.md';
let parsed;
try {
  // --write FILE: also write the table, with the machine, Node version and date, to FILE (docs/performance.md).
  const options = {
    quick: { type: 'boolean' },
    write: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  parsed = parseCommandLine({ options, allowPositionals: true });
} catch (error) {
  if (!(error instanceof CLIError)) throw error;
  console.error(
    error.message.startsWith('--write needs a value') ? WRITE_NEEDS_A_FILE : `bench: ${error.message}\n${USAGE}`,
  );
  process.exit(error.exitCode);
}
if (parsed.values.help) {
  console.log(`${USAGE}
  --quick       fewer, shorter rounds
  --write FILE  also write the table, with the machine, Node version and date, to FILE (docs/performance.md)
  filter…       only the scenarios whose file name contains one of them`);
  process.exit(0);
}
const quick = parsed.values.quick === true;
const writeTo = parsed.values.write;
if (writeTo !== undefined && (writeTo === '' || writeTo.startsWith('--'))) {
  console.error(WRITE_NEEDS_A_FILE);
  process.exit(2);
}
const filters = parsed.positionals;
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (filters.length === 0 || filters.some((filter) => f.includes(filter))))
  .sort();

const rows: BenchRow[] = [];
for (const file of files) {
  process.stderr.write(`bench: ${file}${quick ? ' (quick)' : ''}...\n`);
  const scenario = (await import(pathToFileURL(dir + file).href)).default as Scenario;
  try {
    rows.push(...(await scenario({ quick })));
  } catch (error) {
    rows.push({
      scenario: file,
      baseline: '-',
      ours: `error: ${(error as Error).message}`,
      ratio: '-',
      target: '-',
      ok: false,
    });
  }
}

const header = ['scenario', 'baseline', 'ours', 'ratio', 'target', 'met'];
const table = rows.map((r) => [
  r.scenario,
  r.baseline,
  r.ours,
  r.ratio,
  r.target,
  r.ok === null ? '-' : r.ok ? 'yes' : 'NO',
]);
const lines = [
  `| ${header.join(' | ')} |`,
  `|${header.map(() => '---').join('|')}|`,
  ...table.map((cells) => `| ${cells.join(' | ')} |`),
];
const missed = rows.filter((r) => r.ok === false).length;
const summary =
  `${rows.length} rows, ${missed} missed their target ` + `(node ${process.version}, ${quick ? 'quick' : 'full'} run)`;
console.log(`${lines.join('\n')}\n\n${summary}`);
if (writeTo) {
  writeBenchReport(writeTo, { table: lines, summary, quick, filters });
  process.stderr.write(`bench: wrote ${writeTo}\n`);
}
