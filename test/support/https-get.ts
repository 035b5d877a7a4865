// One HTTPS request trusting a given CA (a test CA's certificate): fetch cannot take one per call on Node 20.
import { request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { SecureVersion } from 'node:tls';

export interface HttpsAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpsGetOptions {
  ca: string;
  headers?: Record<string, string>;
  method?: string;
  /** Sent as the request body (a form's fields, say). */
  body?: string;
  /** Offer at most this TLS version (to check that older ones are refused). */
  maxVersion?: SecureVersion;
  timeout?: number;
  /** The local address to send from: 127.0.0.x, to be another client to a server on loopback. */
  localAddress?: string;
}

/** Rejects on any failure to get an answer (a refused handshake, an untrusted certificate, the deadline). */
export function httpsGet(
  url: string,
  { ca, headers, method = 'GET', body: payload, maxVersion, timeout = 5000, localAddress }: HttpsGetOptions,
) {
  return new Promise<HttpsAnswer>((resolve, reject) => {
    const req = request(
      url,
      {
        ca,
        headers,
        method,
        agent: false,
        timeout,
        localAddress,
        ...(maxVersion ? { maxVersion, minVersion: 'TLSv1' } : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within ${timeout} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}
