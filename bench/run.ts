// `npm run bench [-- --quick] [--write FILE] [filter]`: runs every bench/*.bench.ts scenario and prints one table.
import { readdirSync } from 'node:fs';
import { writeBenchReport } from './report.ts';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchRow, Scenario } from './scenario.ts';

const dir = fileURLToPath(new URL('./', import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
// --write FILE: also write the table, with the machine, Node version and date, to FILE (docs/performance.md).
const writeAt = args.indexOf('--write');
const writeTo = writeAt === -1 ? undefined : args[writeAt + 1];
if (writeAt !== -1 && (!writeTo || writeTo.startsWith('--'))) {
  console.error('bench: --write needs a file, e.g. --write docs/performance.md');
  process.exit(2);
}
const filter = args.find((a, i) => !a.startsWith('--') && !(writeAt !== -1 && i === writeAt + 1)) ?? '';
const files = readdirSync(dir).filter((f) => f.endsWith('.bench.ts') && f.includes(filter)).sort();

const rows: BenchRow[] = [];
for (const file of files) {
  process.stderr.write(`bench: ${file}${quick ? ' (quick)' : ''}...\n`);
  const scenario = (await import(pathToFileURL(dir + file).href)).default as Scenario;
  try {
    rows.push(...(await scenario({ quick })));
  } catch (error) {
    rows.push({ scenario: file, baseline: '-', ours: `error: ${(error as Error).message}`, ratio: '-', target: '-', ok: false });
  }
}

const header = ['scenario', 'baseline', 'ours', 'ratio', 'target', 'met'];
const table = rows.map((r) => [r.scenario, r.baseline, r.ours, r.ratio, r.target, r.ok === null ? '-' : r.ok ? 'yes' : 'NO']);
const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...table.map((cells) => `| ${cells.join(' | ')} |`)];
const summary = `${rows.length} rows, ${rows.filter((r) => r.ok === false).length} missed their target (node ${process.version}, ${quick ? 'quick' : 'full'} run)`;
console.log(`${lines.join('\n')}\n\n${summary}`);
if (writeTo) {
  writeBenchReport(writeTo, { table: lines, summary, quick, filter });
  process.stderr.write(`bench: wrote ${writeTo}\n`);
}
