// The frontend's token settings, on lib/env.ts's readSecret (inline `X`, or `X_FILE`, a mounted Docker secret):
// one token per line, `#` comments and blank lines ignored. Errors name the setting and never print its value.
import { ConfigError } from '../lib/config-error.ts';
import { readSecret, type ReadFile } from '../lib/env.ts';
import { tokenStrengthProblem } from '../lib/token-strength.ts';

type Env = Record<string, string | undefined>;
export type { ReadFile };

/** The tokens of `name` (inline: comma-separated) or `name_FILE`; undefined when neither is set. */
export function readTokenList(env: Env, name: string, readFile?: ReadFile): string[] | undefined {
  const secret = readSecret(env, name, readFile);
  if (secret === undefined) return undefined;
  const text = secret.value;
  const separator = secret.setting.endsWith('_FILE') ? /\r?\n/ : /[,\r\n]/;
  const tokens = text
    .split(separator)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  // Named by the setting and the token's position, never its text (lib/token-strength.ts).
  tokens.forEach((token, i) => {
    const problem = tokenStrengthProblem(token);
    if (problem) throw new ConfigError(`${secret.setting}: token ${i + 1} ${problem}`);
  });
  return tokens;
}

/** One token from `name` or `name_FILE` (its first line that is not a comment); undefined when neither is set. */
export function readToken(env: Env, name: string, readFile?: ReadFile): string | undefined {
  const tokens = readTokenList(env, name, readFile);
  if (tokens === undefined) return undefined;
  if (tokens.length !== 1) throw new ConfigError(`${name} must hold exactly one token, found ${tokens.length}`);
  return tokens[0];
}
