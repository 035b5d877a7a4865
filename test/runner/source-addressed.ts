// An esbuild plugin for bundles that must behave as their sources: in every project module bundled (not in the
// packages), `import.meta.url`, `.filename`, `.dirname` and `.resolve()` name the source file, so a test still reads
// its fixtures beside it, finds this checkout, and spawns `node --import tsx <its sibling>.ts`.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

/** `import.meta.resolve(specifier)` from the source's address: relative specifiers against it, others as before. */
const resolveFrom = (url: string) =>
  `((specifier) => /^\\.{1,2}\\//.test(specifier) ? new URL(specifier, ${url}).href : import.meta.resolve(specifier))(`;

/** The source text of the module at `path` with its `import.meta` properties naming that file. */
export function sourceAddressedText(path: string): string {
  const url = JSON.stringify(pathToFileURL(path).href);
  return readFileSync(path, 'utf8')
    .replaceAll('import.meta.url', () => url)
    .replaceAll('import.meta.filename', () => JSON.stringify(path))
    .replaceAll('import.meta.dirname', () => JSON.stringify(dirname(path)))
    .replaceAll('import.meta.resolve(', () => resolveFrom(url));
}

export function sourceAddressed(): Plugin {
  return {
    name: 'source-addressed',
    setup(plugin) {
      plugin.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, (args) => {
        if (args.path.includes('/node_modules/')) return undefined;
        return { contents: sourceAddressedText(args.path), loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js' };
      });
    },
  };
}
