// SIGHUP re-reads READ_TOKENS_FILE: a token removed from the file is refused from the next request on, without a
// restart (docs/access.md#read-access). A file that cannot be read, or that holds a weak token, changes nothing:
// the tokens listed before stay, and one line says why (lib/token-reload.ts, shared with the frontend).
import type { ReadFile } from '../../lib/env.ts';
import { createTokenReload, onHangup } from '../../lib/token-reload.ts';
import type { SetTokens } from './read-gate.ts';
import { readReadTokens } from './read-tokens.ts';

type Env = Record<string, string | undefined>;
/** What it needs of a logger: a pino `Logger` fits. */
export interface ReloadLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** The reload, as each SIGHUP runs it; never throws. The line counts the tokens, never quotes one. */
export function createReadTokenReload(env: Env, setTokens: SetTokens, log: ReloadLog, readFile?: ReadFile) {
  return createTokenReload({
    read: () => readReadTokens(env, readFile) ?? [],
    apply(tokens) {
      setTokens(tokens);
      log.info(
        { tokens: tokens.length },
        `read tokens reloaded: ${tokens.length} token${tokens.length === 1 ? '' : 's'}`,
      );
    },
    refused: (reason) => log.warn({}, `read tokens not reloaded, the ones listed before stay: ${reason}`),
  });
}

/**
 * For createApp's onReadTokenReload: each SIGHUP reloads READ_TOKENS_FILE. Undefined when the tokens are not in a
 * file (READ_TOKENS itself cannot change under a running process): SIGHUP then ends the backend, as before.
 */
export function reloadReadTokensOnHangup(env: Env, log: ReloadLog): ((setTokens: SetTokens) => void) | undefined {
  if (!env.READ_TOKENS_FILE) return undefined;
  return (setTokens) => onHangup(createReadTokenReload(env, setTokens, log));
}
