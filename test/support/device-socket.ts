// Opens the backend's device socket as a client would, reporting either the open socket or the HTTP refusal.
import WebSocket from 'ws';
import type { IncomingHttpHeaders } from 'node:http';
import { DEVICE_SOCKET_PATH } from '../../lib/device-protocol.ts';
import { withDeadline } from './deadline.ts';
import { TEST_DEVICE_TOKEN } from './spawn-service.ts';

export interface OpenSocket {
  status: 101;
  ws: WebSocket;
  /** The headers of the 101 answer. */
  headers: IncomingHttpHeaders;
  /** Every text message received, parsed. */
  messages: Array<Record<string, any>>;
  /** Resolves with the close code (and reason) once the socket has closed. */
  closed: Promise<{ code: number; reason: string }>;
}

export interface Refused {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** `authorization` defaults to the test token; pass null to send none. `ca`: trust this CA for a `https://` base. */
export function upgrade(
  baseUrl: string,
  {
    authorization = `Bearer ${TEST_DEVICE_TOKEN}` as string | null,
    timeout = 5000,
    ca = undefined as string | undefined,
  } = {},
): Promise<OpenSocket | Refused> {
  const headers = authorization === null ? {} : { Authorization: authorization };
  const url = baseUrl.replace(/^http/, 'ws') + DEVICE_SOCKET_PATH;
  const ws = new WebSocket(url, { headers, perMessageDeflate: false, ...(ca ? { ca } : {}) });
  const messages: Array<Record<string, any>> = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data))));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  return withDeadline(
    new Promise<OpenSocket | Refused>((resolve, reject) => {
      let answered: IncomingHttpHeaders = {};
      ws.once('upgrade', (res) => (answered = res.headers));
      ws.once('open', () => resolve({ status: 101, ws, messages, closed, headers: answered }));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          ws.terminate();
        });
      });
      ws.on('error', reject); // after settling, a later error (the socket torn down) changes nothing
    }),
    timeout,
    `device socket upgrade at ${baseUrl}`,
  );
}

/** The open socket, or a failure naming the status the backend refused it with. */
export async function openSocket(baseUrl: string, options?: Parameters<typeof upgrade>[1]): Promise<OpenSocket> {
  const result = await upgrade(baseUrl, options);
  if (result.status !== 101) throw new Error(`device socket refused with ${result.status}`);
  return result as OpenSocket;
}
