// One GET with a hard deadline, a body cap, same-path redirects only, and every address the host resolves to.
// The smoke's probes and the frontend's status page both go through it. It is node:http, not fetch: on Node 20
// `AbortSignal.timeout` did not reliably end `res.text()` on a body that never ends (2 of 4 runs hung, the
// frontend grew past 6 GB), while here one timer destroys the socket whatever the peer does, and the body is
// counted as it arrives.
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { describeNetworkError } from './network-error.ts';
import { resolveHost, type Address } from './resolve-host.ts';
import { speaksTls } from './tls-sniff.ts';
import { DeadlineError, withDeadline } from './with-deadline.ts';

export interface HttpResponse {
  url: string;
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What happened, as data: the answer, or the one-line reason there is none; `ms` either way. */
export type HttpResult =
  (HttpResponse & { reached: true; ms: number }) | { reached: false; reason: string; ms: number };

export interface GetOptions {
  timeout: number;
  /** Health bodies are tiny; anything bigger is not one of ours. */
  maxBytes?: number;
  maxRedirects?: number;
  /** Sent with the request (a read token); dropped once a redirect leaves the URL's origin, as fetch does. */
  headers?: Record<string, string>;
  /** The only CA (PEM) an https:// answer is verified against, instead of Node's store (the smoke's --ca-file). */
  ca?: string;
}

const MAX_BYTES = 64 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Errors that mean "nobody listens on this address": worth trying the host's next address.
const TRY_NEXT = new Set(['ECONNREFUSED', 'EADDRNOTAVAIL', 'EHOSTUNREACH', 'ENETUNREACH', 'EAFNOSUPPORT']);

/** Never rejects: every way a GET can fail is a `reason` (a URL it cannot use included). */
export async function httpGet(url: string, options: GetOptions): Promise<HttpResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    return { reached: true, ...(await _get(url, options)), ms: ms() };
  } catch (error) {
    return { reached: false, reason: (error as Error).message, ms: ms() };
  }
}

// Below, a plain Error's message is the reason to print; a system error (it has a code) is described first.
const _reason = (error: unknown, url: URL) =>
  (error as NodeJS.ErrnoException).code ? new Error(describeNetworkError(error, url)) : (error as Error);

async function _get(url: string, { timeout, maxBytes = MAX_BYTES, maxRedirects = 5, headers = {}, ca }: GetOptions) {
  const deadline = Date.now() + timeout;
  const seen = new Set<string>();
  const origin = new URL(url).origin;
  let current = new URL(url);
  for (;;) {
    seen.add(current.href);
    const sent = current.origin === origin ? headers : {};
    const res = await _getFromAnyAddress(current, { deadline, timeout, maxBytes, headers: sent, ca });
    const location = res.headers.location;
    if (!REDIRECTS.has(res.status) || !location) return res;
    const next = _redirectTarget(location, current, res.status);
    // Following http→https or a host change is fine; a redirect to another path means "not the endpoint".
    if (next.pathname !== current.pathname || next.search !== current.search) {
      throw new Error(`redirected elsewhere: HTTP ${res.status} to ${location}`);
    }
    if (seen.has(next.href))
      throw new Error(`redirect loop: HTTP ${res.status} from ${current.href} back to ${next.href}`);
    if (seen.size > maxRedirects) throw new Error(`more than ${maxRedirects} redirects, last to ${next.href}`);
    current = next;
  }
}

/** Where a redirect points; a Location that is no http(s) URL is a bad answer from the service, not a crash. */
function _redirectTarget(location: string, from: URL, status: number): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new Error(`redirected to an invalid URL: HTTP ${status} to ${location}`);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:')
    throw new Error(`redirected to a non-HTTP URL: HTTP ${status} to ${location}`);
  return next;
}

/** `deadline` is the epoch ms the whole GET must end by; `timeout` the bound it came from, for the reasons. */
interface Limits {
  deadline: number;
  timeout: number;
  maxBytes: number;
  headers: Record<string, string>;
  ca?: string;
}

async function _getFromAnyAddress(url: URL, limits: Limits): Promise<HttpResponse> {
  const { deadline, timeout } = limits;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses: Address[] = await withDeadline(
    resolveHost(host),
    deadline - Date.now(),
    `cannot resolve ${host}`,
  ).catch((error: unknown) => {
    throw error instanceof DeadlineError
      ? new Error(`${error.what}: no answer within ${timeout}ms`)
      : _reason(error, url);
  });
  const refused: string[] = [];
  for (const { address, family } of addresses) {
    try {
      return await _requestOnce(url, address, family, limits);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (!code || !TRY_NEXT.has(code)) throw _reason(error, url);
      refused.push(family === 6 ? `[${address}]` : address);
      if (refused.length === addresses.length) {
        const tried = refused.length > 1 ? ` (tried ${refused.join(', ')})` : '';
        throw new Error(`${describeNetworkError(error, url)}${tried}`);
      }
    }
  }
  throw new Error(`cannot resolve ${host}: no addresses`);
}

/** One GET to one address; the deadline covers the headers and the whole body, and destroys the socket. */
async function _requestOnce(url: URL, address: string, family: number, limits: Limits): Promise<HttpResponse> {
  const { deadline, timeout, maxBytes, headers, ca } = limits;
  let received = 0;
  let phase: 'connect' | 'body' = 'connect';
  let req: ClientRequest | undefined;
  const answer = new Promise<HttpResponse>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const lookup: LookupFunction = (_host, options, callback) => {
      if (options.all)
        (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const options = { method: 'GET', agent: false, lookup, headers: { accept: 'application/json', ...headers } };
    req =
      url.protocol === 'https:' ? httpsRequest(url, { ...options, ...(ca ? { ca } : {}) }) : httpRequest(url, options);
    req.on('error', reject);
    req.on('response', (res) => {
      phase = 'body';
      const declared = Number(res.headers['content-length']);
      if (declared > maxBytes)
        return reject(new Error(`body too large: content-length ${declared} exceeds ${maxBytes} bytes`));
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) reject(new Error(`body too large: more than ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on('error', reject);
      res.on('aborted', () => reject(new Error(`connection closed after ${received} bytes of the body`)));
      res.on('end', () =>
        resolve({
          url: url.href,
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.end();
  });
  try {
    return await withDeadline(answer, deadline - Date.now(), url.href);
  } catch (error) {
    req?.destroy(); // whatever the peer is still doing (connecting, sending without end), the exchange is over
    if (!(error instanceof DeadlineError)) throw await _plainToTls(error, url, address, phase, deadline);
    throw new Error(
      phase === 'connect'
        ? `no response within ${timeout}ms`
        : `body not complete within ${timeout}ms (${received} bytes received)`,
    );
  }
}

/**
 * A TLS port resets a plain-http request without a word (Node's and HAProxy's alike), which reads as a bare
 * "connection reset"; when the port answers a TLS handshake instead, the reason says so, as the reverse case does.
 */
async function _plainToTls(error: unknown, url: URL, address: string, phase: string, deadline: number) {
  const reset = (error as NodeJS.ErrnoException).code === 'ECONNRESET' && phase === 'connect';
  if (!reset || url.protocol !== 'http:') return error;
  if (!(await speaksTls(address, Number(url.port || 80), deadline - Date.now()))) return error;
  return new Error(`${describeNetworkError(error, url)} (the port speaks TLS: use https://)`);
}
