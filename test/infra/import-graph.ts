// Follows the static imports of a TypeScript entry point: which project files it needs, and which packages.
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, relative, resolve } from 'node:path';

export interface ImportGraph {
  /** Project files reachable from the entry, relative to the root, entry included. */
  files: string[];
  /** Package names imported at run time (type-only imports left out, built-ins left out). */
  packages: string[];
  /** Relative imports that name no file, relative to the root (a copy of the sources that left a file out). */
  missing: string[];
}

// `import x from '...'`, `export ... from '...'`, `import '...'` and `import('...')`; `import type` is erased.
const STATIC_SPECIFIER =
  /(?:^|[\s;])(?:import(?!\s+type\s)(?:[\s\S]*?\sfrom)?|export(?!\s+type\s)[\s\S]*?\sfrom)\s*['"]([^'"]+)['"]/;
const DYNAMIC_SPECIFIER = /import\(\s*['"]([^'"]+)['"]\s*\)/;
const SPECIFIERS = new RegExp(`${STATIC_SPECIFIER.source}|${DYNAMIC_SPECIFIER.source}`, 'g');

export function importGraph(root: string, entry: string): ImportGraph {
  const files = new Set<string>();
  const packages = new Set<string>();
  const missing = new Set<string>();
  const pending = [resolve(root, entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    const name = relative(root, file);
    if (files.has(name) || missing.has(name)) continue;
    if (!existsSync(file)) {
      missing.add(name);
      continue;
    }
    files.add(name);
    const source = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
    for (const match of source.matchAll(SPECIFIERS)) {
      const specifier = (match[1] ?? match[2])!;
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier));
      else if (!isBuiltin(specifier)) packages.add(packageName(specifier));
    }
  }
  return { files: [...files].sort(), packages: [...packages].sort(), missing: [...missing].sort() };
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}
