// The repository's root folder, for tools that run files or read paths relative to it (any working directory).
import { fileURLToPath } from 'node:url';

/** Absolute path of the project root, ending in a path separator. */
export const projectRoot = fileURLToPath(new URL('../', import.meta.url));
