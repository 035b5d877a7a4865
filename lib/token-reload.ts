// SIGHUP re-reads a service's token file: the frontend's operator tokens, the backend's read tokens. A file that
// cannot be read, or that holds a weak token, changes nothing: the tokens listed before stay, and one line says why.

export interface TokenReloadOptions {
  /** Reads the list again, as at start-up; throws a ConfigError that names the setting, never a token. */
  read: () => readonly string[];
  /** Puts the list in force. */
  apply: (tokens: readonly string[]) => void;
  /** Says why nothing changed: the error's one line, which names the setting and never a token. */
  refused: (reason: string) => void;
}

/** The reload itself, called on each SIGHUP; never throws, so a bad file cannot stop the service. */
export function createTokenReload({ read, apply, refused }: TokenReloadOptions): () => void {
  return function reloadTokens() {
    let tokens: readonly string[];
    try {
      tokens = read();
    } catch (error) {
      refused((error as Error).message);
      return;
    }
    apply(tokens);
  };
}

/** Each SIGHUP runs `reload` (`kill -HUP <pid>`, `docker kill -s HUP <container>`), instead of ending the process. */
export function onHangup(reload: () => void): void {
  process.on('SIGHUP', reload);
}
