// `npm run build:package`: compiles the kit (tsconfig.build.json) into dist/package with its own package.json,
// so that `npm pack ./dist/package` ships the kit and installs only what its compiled files import.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';
import { projectRoot as root } from '../tools/project-root.ts';
import { kitManifest, UndeclaredImportError, type KitManifest, type RepositoryManifest } from './package-manifest.ts';
import { withPackedLinks } from './packed-links.ts';

const out = join(root, 'dist/package');
/** Shipped beside the code; package.json's links into lib/ and smoke/ keep working from the package's root. */
const READMES = ['README.md', 'lib/README.md', 'smoke/README.md'];

/**
 * The text with every relative `./x.ts` import written `./x.js`. tsc's rewriteRelativeImportExtensions does this
 * for JavaScript only; its declarations keep `.ts`, which TypeScript before 5.x cannot resolve from a package.
 */
function withJsImports(text: string): string {
  const spans = ts
    .preProcessFile(text, true, true)
    .importedFiles.filter((f) => f.fileName.startsWith('.') && f.fileName.endsWith('.ts'))
    .sort((a, b) => b.pos - a.pos);
  let result = text;
  for (const { fileName, pos } of spans) {
    // `pos` is where the specifier's token starts, its quote included: find the name from there.
    const start = result.indexOf(fileName, pos);
    result = `${result.slice(0, start)}${fileName.slice(0, -3)}.js${result.slice(start + fileName.length)}`;
  }
  return result;
}

function fail(diagnostics: readonly ts.Diagnostic[]): never {
  const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  process.stderr.write(ts.formatDiagnostics(diagnostics, host));
  process.exit(1);
}

/** The compiled files to ship: all JavaScript, and declarations for the library only (the bin has no API). */
function compile(): Map<string, string> {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.build.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => fail([d]),
  })!;
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const files = new Map<string, string>();
  const emitted = program.emit(undefined, (file, text) => {
    const path = relative(out, file);
    if (file.endsWith('.js') || path.startsWith(`lib${sep}`)) files.set(path, withJsImports(text));
  });
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length > 0) fail(diagnostics);
  return files;
}

function main() {
  const files = compile();
  const imported = [...files.values()].flatMap((text) => ts.preProcessFile(text, true, true).importedFiles);
  const repository = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as RepositoryManifest;
  let manifest: KitManifest;
  try {
    manifest = kitManifest(
      repository,
      imported.map((f) => f.fileName),
    );
  } catch (error) {
    if (!(error instanceof UndeclaredImportError)) throw error;
    console.error(`build:package: ${error.message}`);
    process.exit(1);
  }
  rmSync(out, { recursive: true, force: true });
  for (const [path, text] of files) {
    mkdirSync(dirname(join(out, path)), { recursive: true });
    writeFileSync(join(out, path), text);
  }
  // A README's links to files the tarball lacks become text naming them in the repository.
  const packed = new Set([...files.keys(), ...READMES, 'package.json'].map((path) => path.split(sep).join('/')));
  for (const readme of READMES) {
    writeFileSync(join(out, readme), withPackedLinks(readme, readFileSync(join(root, readme), 'utf8'), packed));
  }
  writeFileSync(join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const dependencies = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.optionalDependencies ?? {})];
  console.log(`build:package: ${files.size} files in dist/package, depending on ${dependencies.join(', ')}`);
}

main();
