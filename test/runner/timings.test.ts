// The runner's order: longest first, and files that take turns at one resource counted as one chain.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { longestFirst, saveSeed, SEED_PATH } from './timings.ts';

const items = (...files: string[]) => files.map((file) => ({ file }));
const lengths: Record<string, number> = { long: 200, short: 10, middle: 50, turnA: 120, turnB: 100 };
const length = (file: string) => lengths[file]!;

test('files are ordered longest first', () => {
  const ordered = longestFirst(items('short', 'long', 'middle'), length);
  assert.equal(
    ordered.map((item) => item.file),
    ['long', 'middle', 'short'],
  );
});

test('files taking turns count as their sum, so the chain starts before a longer single file', () => {
  const turnsOf = (file: string) => (file.startsWith('turn') ? 'resource' : undefined);
  const ordered = longestFirst(items('short', 'long', 'turnB', 'middle', 'turnA'), length, turnsOf);
  assert.equal(
    ordered.map((item) => item.file),
    ['turnA', 'turnB', 'long', 'middle', 'short'],
  );
});

test("a run's times join the seed's others (the fault suite's beside the suite's); a file gone leaves it", () => {
  const dir = mkdtempSync(join(tmpdir(), 'seed-'));
  const seedPath = join(dir, 'file-times.json');
  try {
    writeFileSync(seedPath, JSON.stringify({ 'test/run.ts': 1000, 'test/gone.test.ts': 5000, 'lib/env.ts': 2000 }));
    saveSeed(
      [
        { file: 'test/run.ts', ms: 3400 },
        { file: 'lib/env.test.ts', ms: 800, batch: true },
      ],
      seedPath,
    );
    assert.is(readFileSync(seedPath, 'utf8'), '{\n  "lib/env.ts": 2000,\n  "test/run.ts": 3000\n}\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// A name the seed keeps after its file is gone costs nothing (only the selected files are looked up); the next
// `--save-times` drops it.
test('the committed seed holds a whole run, in whole seconds as `--save-times` writes it', () => {
  const seed = Object.entries(JSON.parse(readFileSync(SEED_PATH, 'utf8')) as Record<string, number>);
  assert.ok(seed.length > 50, `${seed.length} files in ${SEED_PATH}`);
  assert.equal(
    seed.filter(([, ms]) => !Number.isInteger(ms / 1000) || ms < 0),
    [],
  );
});

test.run();
