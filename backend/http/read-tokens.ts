// Reads READ_TOKENS (or the file READ_TOKENS_FILE names): the bearer tokens that may read device data, several at
// once so one can be rotated out while its successor is already in use.
import { ConfigError } from '../../lib/config-error.ts';
import { readSecret, type ReadFile } from '../../lib/env.ts';
import { tokenProblem } from '../../lib/device-token.ts';
import { tokenStrengthProblem } from '../../lib/token-strength.ts';

/**
 * The tokens, or undefined when neither setting is set. Tokens are separated by commas or newlines; blank entries
 * and lines starting with `#` are ignored. Each follows the device token's rules (a bearer token, at least 16
 * characters) and the strength rule (lib/token-strength.ts: an estimate of 128 bits or more). Errors name an
 * entry by its position only, never its text.
 */
export function readReadTokens(env: Record<string, string | undefined>, readFile?: ReadFile): string[] | undefined {
  const secret = readSecret(env, 'READ_TOKENS', readFile);
  if (secret === undefined) return undefined;
  const tokens = secret.value
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .flatMap((line) => line.split(','))
    .map((token) => token.trim())
    .filter(Boolean);
  if (tokens.length === 0) throw new ConfigError(`${secret.setting} lists no token: expected one per line`);
  tokens.forEach((token, i) => {
    const problem = tokenProblem(token) ?? tokenStrengthProblem(token);
    if (problem) throw new ConfigError(`${secret.setting} entry ${i + 1}: the token ${problem}`);
  });
  return tokens;
}
