// What the backend may say about its MongoDB URI: the database name and a redacted form, never the password.

// Up to the last `@` before the path or query, so that an unencoded `@` in a password is hidden too. Any
// scheme: a rejected MONGODB_URI (postgres://user:pass@…, say) is quoted in the error and must not leak either.
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i;

/** The URI with any password replaced by `***` (also for URIs `new URL` cannot parse, e.g. several hosts). */
export function redactUri(uri: string): string {
  return uri.replace(USERINFO, (_, scheme: string, userinfo: string) => {
    const user = userinfo.split(':')[0] ?? '';
    return `${scheme}${user}${userinfo.includes(':') ? ':***' : ''}@`;
  });
}

/** The database named in the URI's path, or the driver's default `test`. */
export function databaseName(uri: string): string {
  const path = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/i.exec(uri)?.[1];
  return path ? safeDecode(path) : 'test';
}

/** Removes the URI's password from any text (a driver error message, say) before it is logged. */
export function scrubSecrets(text: string, uri: string): string {
  const userinfo = USERINFO.exec(uri)?.[2] ?? '';
  const password = userinfo.includes(':') ? userinfo.slice(userinfo.indexOf(':') + 1) : '';
  if (!password) return text;
  let scrubbed = text.split(password).join('***');
  const decoded = safeDecode(password);
  if (decoded !== password) scrubbed = scrubbed.split(decoded).join('***');
  return scrubbed;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
