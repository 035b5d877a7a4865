// SIGHUP re-reads the operators' tokens (OPERATOR_TOKENS_FILE): a token removed from the file, and every session it
// opened, ends without a restart (docs/access.md#sessions-that-end). A file that cannot be read, or that holds a
// weak token, changes nothing: the tokens listed before stay, and one line says why (lib/token-reload.ts).
import { createTokenReload as reloadWith, onHangup } from '../lib/token-reload.ts';
import type { LogLine } from './access-log.ts';

export interface TokenReloadOptions {
  /** Reads the list again, as at start-up; throws a ConfigError that names the setting, never a token. */
  read: () => readonly string[];
  /** Puts the list in force; returns how many sessions it ended. */
  setTokens: (tokens: readonly string[]) => number;
  log: LogLine;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The reload itself, called on each SIGHUP; never throws, so a bad file cannot stop the frontend. */
export function createTokenReload({ read, setTokens, log }: TokenReloadOptions): () => void {
  return reloadWith({
    read,
    apply(tokens) {
      const ended = setTokens(tokens);
      log(
        `frontend: operator tokens reloaded: ${plural(tokens.length, 'token')}; ` +
          `${plural(ended, 'session')} of removed tokens ended`,
      );
    },
    refused: (reason) => log(`frontend: operator tokens not reloaded, the ones listed before stay: ${reason}`),
  });
}

/** For createApp's onTokenReload: each SIGHUP reloads (`docker kill -s HUP`, `kill -HUP <pid>`). */
export function reloadOnHangup(read: () => readonly string[], log: LogLine) {
  return (setTokens: (tokens: readonly string[]) => number) => onHangup(createTokenReload({ read, setTokens, log }));
}
