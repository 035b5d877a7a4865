// How the tools start one of this checkout's TypeScript entry points as a child (the trailer its smoke and local
// stack, the local stack its services and smoke): `node --import tsx <entry>`, as a checkout runs them. Where
// JS_ENTRIES_DIR names a folder holding entries compiled to JavaScript at their source's path (`smoke/cli.js` for
// `smoke/cli.ts`), the entries it holds run from there instead, loading no TypeScript compiler (the tests' build).
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { projectRoot } from './project-root.ts';

/** The node arguments that run `entry`, a path from the project root such as `smoke/cli.ts`. */
export function entryArgs(entry: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = env.JS_ENTRIES_DIR;
  const compiled = dir && isAbsolute(dir) ? join(dir, entry.replace(/\.ts$/, '.js')) : undefined;
  if (compiled && existsSync(compiled)) return [compiled];
  return ['--import', 'tsx', join(projectRoot, entry)];
}
