// The option tables in the CLIs' READMEs are written by hand for people; their option tables are what the parsers
// read and --help prints. This holds the two together: every option listed, none invented, the same env fallbacks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { smokeArgs } from '../smoke/config.ts';
import { trailerArgs } from '../smoke/trailer/args.ts';
import { projectRoot as root } from '../tools/project-root.ts';
import type { OptionDoc } from '../tools/usage.ts';

interface Row {
  flags: string[];
  cells: string[];
}

/** The rows of a README's table whose first cell names options (`--name VALUE`, `--a URL`, `--b URL`). */
function optionRows(readme: string): Row[] {
  return readFileSync(join(root, readme), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| `--'))
    .map((line) => {
      const cells = line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim());
      return { flags: [...cells[0]!.matchAll(/`--([a-z-]+)/g)].map((m) => m[1]!), cells };
    });
}

const plain = (cell: string) => cell.replace(/`/g, '');

function sameOptions(readme: string, options: Record<string, OptionDoc>) {
  const listed = optionRows(readme).flatMap((row) => row.flags);
  assert.ok(listed.length >= 5, `${readme}'s option rows were read`);
  assert.equal([...listed].sort(), Object.keys(options).sort(), `${readme}'s table against the option table`);
}

test('smoke/README.md lists every option the smoke parses, and no other', () => {
  sameOptions('smoke/README.md', smokeArgs);
});

test("smoke/README.md's environment column is the option table's fallback", () => {
  for (const { flags, cells } of optionRows('smoke/README.md')) {
    for (const flag of flags) {
      const option: OptionDoc = smokeArgs[flag as keyof typeof smokeArgs];
      assert.is(plain(cells[1]!), option.env ?? '—', `--${flag}`);
    }
  }
});

test('smoke/trailer/README.md lists every option the trailer parses, and no other', () => {
  sameOptions('smoke/trailer/README.md', trailerArgs);
});

test.run();
