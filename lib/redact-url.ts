// Hides the credentials a URL can carry before it is printed, logged or written: the userinfo's password and the
// values of query (or fragment) parameters named like a secret. Every part of the project redacts through here.
import { safeDecode } from './safe-decode.ts';

const MASK = '***';

/**
 * Parameter names that carry a secret: `proxyPassword`, `tlsCertificateKeyFilePassword`, `access_token`,
 * `api_key`, `client_secret`, `X-Amz-Signature`, `sig`, `auth`… `authMechanismProperties` can hold an
 * `AWS_SESSION_TOKEN`. A redacted name that held no secret costs a value in a log line; a missed one leaks it.
 */
const SECRET_NAME = /pass|pwd|secret|token|key|credential|signature|^sig$|^auth$|^authMechanismProperties$/i;

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const WHOLE_PARAM = /([?&#])([^=&#?]+)=([^&#]*)/g;
// In free text a URL ends at whitespace, quotes, angle brackets or a control character (a colour code), none of
// which a serialized URL holds raw, and a value leaves the punctuation that ends a sentence or a list (`; `, `, `,
// `)`) to the text.
const TEXT_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s\0-\x1f/"'<>]*)@/gi;
const TEXT_PARAM = /([?&#])([^=&#?\s\0-\x1f"'<>]+)=([^&#\s\0-\x1f"'<>]*?)(?=[;,.)\]]*(?:[&#\s\0-\x1f"'<>]|$))/g;

/** One URL (the whole string, parseable or not: several hosts, a bad port) with its credentials replaced by `***`. */
export function redactUrl(url: string): string {
  const password = passwordOf(url);
  const hidden = password ? `${url.slice(0, password.start)}${MASK}${url.slice(password.end)}` : url;
  return hidden.replace(WHOLE_PARAM, hideParam);
}

/** Free text (a reason, an error message, a log line) with the credentials of every URL in it replaced by `***`. */
export function redactUrlsIn(text: string): string {
  return text.replace(TEXT_USERINFO, hideUserinfo).replace(TEXT_PARAM, hideParam);
}

/**
 * Text that may quote a URL's secrets outside any URL (a driver's "authentication failed for <password>"): every
 * URL in it redacted, then each secret of `url`, raw and percent-decoded, replaced by `***`.
 */
export function scrubSecrets(text: string, url: string): string {
  let scrubbed = redactUrlsIn(text);
  for (const secret of secretsOf(url)) scrubbed = scrubbed.split(secret).join(MASK);
  return scrubbed;
}

/** The URL's secret values, raw and decoded, longest first (so that a secret inside another goes last). */
function secretsOf(url: string): string[] {
  const raw: string[] = [];
  const password = passwordOf(url);
  if (password) raw.push(url.slice(password.start, password.end));
  for (const [, , name, value] of url.matchAll(WHOLE_PARAM)) if (SECRET_NAME.test(name!)) raw.push(value!);
  const all = raw.flatMap((secret) => [secret, safeDecode(secret)]).filter((secret) => secret !== '');
  return [...new Set(all)].sort((a, b) => b.length - a.length);
}

/**
 * Where one URL's password lies (after the user's `:`, up to the `@`), if it has one. A URL that parses has its
 * userinfo before the last `@` of its authority, which ends at the first `/`, `?` or `#`. One that does not (several
 * hosts, a bad port, or a password with an unescaped `/`, `?`, `#` or `@`, which the driver refuses) is read as the
 * driver's parser reads it: the user up to the first `:`, the password up to the last `@` of the whole string.
 */
function passwordOf(url: string): { start: number; end: number } | undefined {
  const start = SCHEME.exec(url)?.[0].length;
  if (start === undefined) return undefined;
  const stop = /[:@/?#\\]/.exec(url.slice(start));
  if (stop?.[0] !== ':') return undefined; // no userinfo, or a user without a password: nothing to hide
  const colon = start + stop.index;
  const authority = URL.canParse(url) ? url.slice(start).split(/[/?#\\]/)[0]! : url.slice(start);
  const at = start + authority.lastIndexOf('@');
  return at > colon ? { start: colon + 1, end: at } : undefined;
}

function hideUserinfo(_: string, scheme: string, userinfo: string): string {
  const colon = userinfo.indexOf(':');
  return colon < 0 ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, colon)}:${MASK}@`;
}

function hideParam(whole: string, separator: string, name: string): string {
  return SECRET_NAME.test(name) ? `${separator}${name}=${MASK}` : whole;
}
