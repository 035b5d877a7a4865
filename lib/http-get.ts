// One GET with a hard deadline, a body cap, same-path redirects only, and every address the host resolves to.
// The smoke's probes and the frontend's status page both go through it. It is node:http, not fetch: on Node 20
// `AbortSignal.timeout` did not reliably end `res.text()` on a body that never ends (2 of 4 runs hung, the
// frontend grew past 6 GB), while here one timer destroys the socket whatever the peer does, and the body is
// counted as it arrives.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { describeNetworkError } from './network-error.ts';
import { resolveHost, type Address } from './resolve-host.ts';

export interface HttpResponse {
  url: string;
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A probe failure whose message is the one-line reason to print. */
export class ProbeFailure extends Error {
  override name = 'ProbeFailure';
}

export interface GetOptions {
  timeout: number;
  /** Health bodies are tiny; anything bigger is not one of ours. */
  maxBytes?: number;
  maxRedirects?: number;
}

const MAX_BYTES = 64 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Errors that mean "nobody listens on this address": worth trying the host's next address.
const TRY_NEXT = new Set(['ECONNREFUSED', 'EADDRNOTAVAIL', 'EHOSTUNREACH', 'ENETUNREACH', 'EAFNOSUPPORT']);

export async function httpGet(
  url: string,
  { timeout, maxBytes = MAX_BYTES, maxRedirects = 5 }: GetOptions,
): Promise<HttpResponse> {
  const deadline = Date.now() + timeout;
  const seen = new Set<string>();
  let current = new URL(url);
  for (;;) {
    seen.add(current.href);
    const res = await _getFromAnyAddress(current, deadline, timeout, maxBytes);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.status) || !location) return res;
    const next = _redirectTarget(location, current, res.status);
    // Following http→https or a host change is fine; a redirect to another path means "not the endpoint".
    if (next.pathname !== current.pathname || next.search !== current.search) {
      throw new ProbeFailure(`redirected elsewhere: HTTP ${res.status} to ${location}`);
    }
    if (seen.has(next.href))
      throw new ProbeFailure(`redirect loop: HTTP ${res.status} from ${current.href} back to ${next.href}`);
    if (seen.size > maxRedirects) throw new ProbeFailure(`more than ${maxRedirects} redirects, last to ${next.href}`);
    current = next;
  }
}

/** Where a redirect points; a Location that is no http(s) URL is a bad answer from the service, not a crash. */
function _redirectTarget(location: string, from: URL, status: number): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new ProbeFailure(`redirected to an invalid URL: HTTP ${status} to ${location}`);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:')
    throw new ProbeFailure(`redirected to a non-HTTP URL: HTTP ${status} to ${location}`);
  return next;
}

async function _getFromAnyAddress(
  url: URL,
  deadline: number,
  timeout: number,
  maxBytes: number,
): Promise<HttpResponse> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Address[];
  try {
    addresses = await _withDeadline(resolveHost(host), deadline, timeout, `cannot resolve ${host}`);
  } catch (error) {
    throw error instanceof ProbeFailure ? error : new ProbeFailure(describeNetworkError(error, url));
  }
  const refused: string[] = [];
  for (const { address, family } of addresses) {
    try {
      return await _requestOnce(url, address, family, deadline, timeout, maxBytes);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (!code || !TRY_NEXT.has(code))
        throw error instanceof ProbeFailure ? error : new ProbeFailure(describeNetworkError(error, url));
      refused.push(family === 6 ? `[${address}]` : address);
      if (refused.length === addresses.length) {
        const tried = refused.length > 1 ? ` (tried ${refused.join(', ')})` : '';
        throw new ProbeFailure(`${describeNetworkError(error, url)}${tried}`);
      }
    }
  }
  throw new ProbeFailure(`cannot resolve ${host}: no addresses`);
}

function _requestOnce(url: URL, address: string, family: number, deadline: number, timeout: number, maxBytes: number) {
  return new Promise<HttpResponse>((resolve, reject) => {
    let settled = false;
    let received = 0;
    let phase: 'connect' | 'body' = 'connect';
    const chunks: Buffer[] = [];
    const lookup: LookupFunction = (_host, options, callback) => {
      if (options.all)
        (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: 'GET', agent: false, lookup, headers: { accept: 'application/json' } });
    const finish = (error: Error | null, value?: HttpResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(value!);
    };
    const timer = setTimeout(
      () => {
        finish(
          new ProbeFailure(
            phase === 'connect'
              ? `no response within ${timeout}ms`
              : `body not complete within ${timeout}ms (${received} bytes received)`,
          ),
        );
      },
      Math.max(0, deadline - Date.now()),
    );
    req.on('error', (error) => finish(error));
    req.on('response', (res) => {
      phase = 'body';
      const declared = Number(res.headers['content-length']);
      if (declared > maxBytes)
        return finish(new ProbeFailure(`body too large: content-length ${declared} exceeds ${maxBytes} bytes`));
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) finish(new ProbeFailure(`body too large: more than ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on('error', (error) => finish(error));
      res.on('aborted', () => finish(new ProbeFailure(`connection closed after ${received} bytes of the body`)));
      res.on('end', () =>
        finish(null, {
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
}

function _withDeadline<T>(promise: Promise<T>, deadline: number, timeout: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ProbeFailure(`${what}: no answer within ${timeout}ms`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
