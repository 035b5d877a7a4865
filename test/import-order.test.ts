// Imports run one way: no import circle in shipped code (type-only imports included), and each part's rooms
// import only the rooms below them (backend/README.md#rooms, device/README.md#rooms), read with TypeScript's parser.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { root } from './support/spawn-service.ts';

const PRODUCTION = ['backend', 'device', 'frontend', 'lib', 'smoke', 'tools'];

/**
 * Each part's rooms, lowest first: a file in a room may import its own room and the rooms before it, never one
 * after it nor the part's top (main.ts, config.ts, app.ts, …), which may import any room.
 */
export const ROOM_ORDER: Record<string, string[]> = {
  backend: ['database', 'readings', 'writer', 'device-socket', 'device-thread', 'http'],
  device: ['spool', 'serial', 'link'],
};

const shipped = (folder: string) =>
  readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|mjs)$/.test(e.name) && !/\.(d|test)\.ts$/.test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((file) => !file.includes('node_modules'));

/** The project files `file` imports (static, dynamic and type-only), relative to the root. */
export function importsOf(file: string, text = readFileSync(join(root, file), 'utf8')): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => normalize(join(dirname(file), specifier)))
    .filter((target) => existsSync(join(root, target)));
}

/** Every import circle among `graph`'s files, each as its files in import order (Tarjan's strongly connected parts). */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const part = stack.splice(stack.indexOf(file));
    if (part.length > 1 || graph.get(file)?.includes(file)) found.push(part);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** The room of `file` within its part (`readings` for backend/readings/x.ts), or undefined at the part's top. */
function roomOf(file: string): { part: string; room?: string } {
  const [part, room, ...rest] = file.split('/');
  return { part: part!, room: rest.length > 0 ? room : undefined };
}

/** Each import of `graph` that runs up its part's rooms, as `importer -> imported`. */
export function importsUpward(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    const from = roomOf(file);
    const order = ROOM_ORDER[from.part];
    if (!order || from.room === undefined) continue;
    for (const target of targets) {
      const to = roomOf(target);
      if (to.part !== from.part) continue;
      const allowed = to.room !== undefined && order.indexOf(to.room) <= order.indexOf(from.room);
      if (!allowed) upward.push(`${file} -> ${target}`);
    }
  }
  return upward;
}

const graph = new Map(PRODUCTION.flatMap(shipped).map((file) => [file, importsOf(file)] as const));

test('the parser sees static, dynamic and type-only imports, and only project files', () => {
  const text = [
    "import { a } from './writer/reading-writer.ts';",
    "import type { B } from '../lib/logger.ts';",
    "export { c } from './http/read-gate.ts';",
    "const d = await import('./main.ts');",
    "import { Hono } from 'hono';",
    "import './no-such-file.ts';",
  ].join('\n');
  assert.equal(importsOf('backend/x.ts', text).sort(), [
    'backend/http/read-gate.ts',
    'backend/main.ts',
    'backend/writer/reading-writer.ts',
    'lib/logger.ts',
  ]);
});

test('a circle is found, of two files and of three, and a tree has none', () => {
  const two = new Map([
    ['a', ['b']],
    ['b', ['a']],
  ]);
  assert.equal(circles(two), [['a', 'b']]);
  const three = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ]);
  assert.equal(circles(three), [['a', 'b', 'c']]);
  assert.equal(
    circles(
      new Map([
        ['a', ['b', 'c']],
        ['b', ['c']],
        ['c', []],
      ]),
    ),
    [],
  );
});

test('an import up the rooms is named, one down or within a room is not', () => {
  const rooms = new Map([
    ['backend/readings/reading-store.ts', ['backend/device-socket/device-hub.ts', 'backend/database/store-guard.ts']],
    [
      'backend/device-socket/device-hub.ts',
      ['backend/readings/reading-store.ts', 'backend/device-socket/frame-queue.ts'],
    ],
    ['device/spool/outbox.ts', ['device/link/backend-link.ts', 'device/config.ts']],
    ['backend/main.ts', ['backend/http/read-gate.ts']],
  ]);
  assert.equal(importsUpward(rooms), [
    'backend/readings/reading-store.ts -> backend/device-socket/device-hub.ts',
    'device/spool/outbox.ts -> device/link/backend-link.ts',
    'device/spool/outbox.ts -> device/config.ts',
  ]);
});

test('every room named in the order is a folder of its part, and every folder of a part is a room', () => {
  for (const [part, order] of Object.entries(ROOM_ORDER)) {
    const folders = readdirSync(join(root, part), { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== 'node_modules')
      .map((e) => e.name);
    assert.equal(folders.sort(), [...order].sort(), part);
  }
});

test('shipped code has no import circle, type-only imports included', () => {
  assert.ok(graph.size > 100, `read ${graph.size} files`);
  assert.equal(circles(graph), []);
});

test('each room imports only the rooms below it', () => {
  assert.equal(importsUpward(graph), []);
});

test.run();
