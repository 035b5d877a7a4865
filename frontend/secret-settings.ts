// The frontend's secret settings: each `X` may come inline or as a file (`X_FILE`, a mounted Docker secret); one
// token per line, `#` comments and blank lines ignored. Errors name the setting and never print its value.
import { readFileSync } from 'node:fs';
import { ConfigError } from '../lib/config-error.ts';
import { readString } from '../lib/env.ts';

type Env = Record<string, string | undefined>;
export type ReadFile = (path: string) => string;

const readUtf8: ReadFile = (path) => readFileSync(path, 'utf8');

/** Tokens shorter than this are guessable; an operator or read token is made with `openssl rand -hex 32`. */
export const MIN_TOKEN_LENGTH = 16;

/** The tokens of `name` (inline: comma-separated) or `name_FILE`; undefined when neither is set. */
export function readTokenList(env: Env, name: string, readFile: ReadFile = readUtf8): string[] | undefined {
  const text = readSecretText(env, name, readFile);
  if (text === undefined) return undefined;
  const separator = env[`${name}_FILE`] !== undefined ? /\r?\n/ : /[,\r\n]/;
  const tokens = text
    .split(separator)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  tokens.forEach((token, i) => {
    if (token.length < MIN_TOKEN_LENGTH)
      throw new ConfigError(`${name}: token ${i + 1} is shorter than ${MIN_TOKEN_LENGTH} characters`);
  });
  return tokens;
}

/** One token from `name` or `name_FILE` (its first line that is not a comment); undefined when neither is set. */
export function readToken(env: Env, name: string, readFile: ReadFile = readUtf8): string | undefined {
  const tokens = readTokenList(env, name, readFile);
  if (tokens === undefined) return undefined;
  if (tokens.length !== 1) throw new ConfigError(`${name} must hold exactly one token, found ${tokens.length}`);
  return tokens[0];
}

function readSecretText(env: Env, name: string, readFile: ReadFile): string | undefined {
  const inline = readString(env, name);
  const path = readString(env, `${name}_FILE`);
  if (inline !== undefined && path !== undefined)
    throw new ConfigError(`${name} and ${name}_FILE are both set: set one of them`);
  if (path === undefined) return inline;
  try {
    return readFile(path);
  } catch (error) {
    // The code only (ENOENT, EACCES): the path may be a token pasted into the wrong setting.
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`${name}_FILE cannot be read (${code}): give the path of a readable file`, { cause: error });
  }
}
