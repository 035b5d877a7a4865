// The kit's own package.json, written into dist/package: its dependencies are the packages its compiled files
// import, at the ranges the repository's package.json gives them, and nothing the services need.
import { isBuiltin } from 'node:module';

/** The fields of the repository's package.json that the kit's manifest takes. */
export interface RepositoryManifest {
  name: string;
  version: string;
  description?: string;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export interface KitManifest {
  name: string;
  version: string;
  description?: string;
  type: 'module';
  exports: Record<string, unknown>;
  main: string;
  types: string;
  bin: Record<string, string>;
  engines?: Record<string, string>;
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** A compiled file imports a package the repository's package.json does not declare: the kit could not run. */
export class UndeclaredImportError extends Error {
  override name = 'UndeclaredImportError';
  readonly code = 'UNDECLARED_IMPORT';
}

/** The package a module specifier names (`@scope/name/sub` → `@scope/name`); undefined for a path or a builtin. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || isBuiltin(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const sorted = (entries: [string, string][]) => Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));

/**
 * The manifest for the kit whose compiled files import `specifiers`. A package the repository lists as optional
 * stays optional (the smoke loads its browser driver only when it runs, and says how to install it).
 */
export function kitManifest(repository: RepositoryManifest, specifiers: Iterable<string>): KitManifest {
  const packages = new Set([...specifiers].flatMap((s) => packageOf(s) ?? []));
  const required: [string, string][] = [];
  const optional: [string, string][] = [];
  for (const name of packages) {
    const range = repository.optionalDependencies?.[name] ?? repository.dependencies?.[name];
    if (range === undefined) {
      throw new UndeclaredImportError(
        `the kit imports ${name}, which package.json's dependencies or optionalDependencies do not list`,
      );
    }
    (repository.optionalDependencies?.[name] === undefined ? required : optional).push([name, range]);
  }
  return {
    name: repository.name,
    version: repository.version,
    ...(repository.description === undefined ? {} : { description: repository.description }),
    type: 'module',
    exports: { '.': { types: './lib/index.d.ts', default: './lib/index.js' }, './package.json': './package.json' },
    main: './lib/index.js',
    types: './lib/index.d.ts',
    bin: { [repository.name]: 'smoke/cli.js' },
    ...(repository.engines === undefined ? {} : { engines: repository.engines }),
    dependencies: sorted(required),
    ...(optional.length === 0 ? {} : { optionalDependencies: sorted(optional) }),
  };
}
