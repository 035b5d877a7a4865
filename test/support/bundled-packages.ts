// Which packages the test and spawn bundles (test/runner/compile-tests.ts, compiled-services.ts) carry inside.
// Bundled, a package is one file's parse instead of hundreds of files resolved and read: a backend took 0.7 CPU-s to
// be ready instead of 1.0 (both its threads load the MongoDB driver), an import of puppeteer-core 0.41 instead of 0.57.
import type { Plugin } from 'esbuild';

/**
 * The packages bundled, with what they import: the heavy ones the services, the smoke CLI and the test files load,
 * none of which finds files of its own at run time. Every other package (pino, whose transports run in a worker by
 * path; serialport's native binding; TypeScript, which reads its own library files) loads from node_modules.
 */
const BUNDLED = new Set(['mongodb', 'bson', 'hono', '@hono/node-server', 'ws', 'prom-client', 'puppeteer-core', 'uvu']);

/** What a bundled package only tries to load (native add-ons, optional packages): left to `require` at run time. */
const OPTIONAL = new Set([
  ...['bufferutil', 'utf-8-validate', 'kerberos', '@mongodb-js/zstd', 'snappy', 'socks', 'aws4'],
  ...['mongodb-client-encryption', '@aws-sdk/credential-providers', 'gcp-metadata', 'chromium-bidi'],
]);

/** `lodash/fp` → `lodash`, `@scope/name/x` → `@scope/name`. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Bundles BUNDLED and what they import (but OPTIONAL); every other package import stays an import at run time. */
export function bundledPackages(): Plugin {
  return {
    name: 'bundled-packages',
    setup(plugin) {
      plugin.onResolve({ filter: /^[^./]/ }, ({ path, importer }) => {
        if (path.startsWith('node:')) return undefined;
        const name = packageOf(path);
        const fromPackage = importer.includes('/node_modules/');
        const bundled = fromPackage ? !OPTIONAL.has(name) : BUNDLED.has(name);
        return bundled ? undefined : { path, external: true };
      });
    },
  };
}

/**
 * A bundled CommonJS package calls `require()` for Node's modules and the packages left out; an ES module bundle
 * has no `require` of its own, so each bundle starts by making one.
 */
export const REQUIRE_BANNER =
  "import { createRequire as createRequireOfBundle } from 'node:module';\n" +
  'const require = createRequireOfBundle(import.meta.url);';
