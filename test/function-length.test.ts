// No function in shipped code is over 100 lines (the house's floor, not its target): every function, method,
// arrow and accessor in the production folders' .ts and browser .js files, measured on the TypeScript AST.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { root } from './support/spawn-service.ts';

const PRODUCTION = ['backend', 'device', 'frontend', 'lib', 'smoke', 'tools'];
const MAX_LINES = 100;
const shipped = (folder: string) =>
  readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|js)$/.test(e.name) && !/\.(d|test)\.ts$/.test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((file) => !file.includes('node_modules'));

/** Each function in `file` longer than MAX_LINES, as `file:line name (n lines)`. */
export function longFunctions(file: string, text = readFileSync(join(root, file), 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const long: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = line(node.getEnd()) - line(node.getStart(source)) + 1;
      if (lines > MAX_LINES) long.push(`${file}:${line(node.getStart(source))} ${nameOf(node)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}

test('the check finds a function over the bound, and names it', () => {
  const body = Array.from({ length: MAX_LINES }, (_, i) => `  const a${i} = ${i};`).join('\n');
  assert.equal(longFunctions('x.ts', `export function tooLong() {\n${body}\n}\nconst ok = () => 1;\n`), [
    `x.ts:1 tooLong (${MAX_LINES + 2} lines)`,
  ]);
});

test(`no function in shipped code is over ${MAX_LINES} lines`, () => {
  const long = PRODUCTION.flatMap(shipped).flatMap((file) => longFunctions(file));
  assert.equal(long, [], 'functions over the bound: cut each into a pure part and a thin I/O part (STYLE.md)');
});

test.run();
