// `npm run bench [-- --quick] [filter]`: runs every bench/*.bench.ts scenario and prints one table.
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchRow, Scenario } from './scenario.ts';

const dir = fileURLToPath(new URL('./', import.meta.url));
let parsed;
try {
  parsed = parseArgs({ options: { quick: { type: 'boolean' } }, allowPositionals: true, strict: true });
} catch (error) {
  process.stderr.write(`bench: ${(error as Error).message.split('. ')[0]}\nusage: npm run bench [-- --quick] [filter]\n`);
  process.exit(2);
}
const quick = parsed.values.quick === true;
const filter = parsed.positionals[0] ?? '';
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
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map(() => '---').join('|')}|`);
for (const cells of table) console.log(`| ${cells.join(' | ')} |`);
console.log(`\n${rows.length} rows, ${rows.filter((r) => r.ok === false).length} missed their target (node ${process.version}, ${quick ? 'quick' : 'full'} run)`);
