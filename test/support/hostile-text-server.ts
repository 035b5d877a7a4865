// Test support: a stack whose every answer carries one hostile string (support/hostile-text.ts) where a server
// chooses the text: reason phrases, headers, check names and values, bodies, redirects, the page's title, console
// messages and exceptions. Written byte by byte over TCP, since node:http refuses to send most of it.
import { createServer, type Socket } from 'node:net';
import { healthyBody, readyBody } from './health-bodies.ts';

export interface HostileTextServer {
  /**
   * Routes under `/<seed>/`: `b` a backend whose probes both fail, `d` a device service likewise, `ok` a healthy
   * service (whose environment is the string), and `f/` a page that loads, so LOAD passes, while it titles itself
   * with the string, logs it as a console error and throws it.
   */
  url: string;
  close(): Promise<void>;
}

type Answer = { status: string; headers: Record<string, string>; body: string };

const json = (body: unknown): Answer => ({
  status: '200 OK',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
// In a script, `<` as an escape: the string may hold `</script>`.
const script = (text: string) => JSON.stringify(text).replace(/</g, '\\u003c');

function answerFor(role: string, rest: string, text: string, seed: string): Answer {
  const at = `${role}${rest}`;
  if (role === 'ok' && rest === '/api/health') return json(healthyBody({ environment: text }));
  if (role === 'ok' && rest === '/api/ready')
    return json(readyBody('ready', { database: 'connected', serial: 'emulator', backend: 'connected' }));
  if (at === 'b/api/health')
    return { status: `500 ${text}`, headers: { 'content-type': `text/plain; x=${text}` }, body: text };
  if (at === 'b/api/ready')
    return { ...json(readyBody('not_ready', { database: 'disconnected', [text]: text })), status: '503 Unavailable' };
  if (at === 'd/api/health') return { status: '200 OK', headers: { 'content-type': `text/${text}` }, body: text };
  if (at === 'd/api/ready') return { status: '302 Found', headers: { location: `/${seed}/x/${text}` }, body: '' };
  if (role === 'f') {
    const page =
      `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><h1>up</h1>` +
      `<script>document.title = ${script(text)}; console.error(${script(text)});` +
      ` setTimeout(() => { throw new Error(${script(text)}) });</script></body></html>`;
    return { status: '200 OK', headers: { 'content-type': 'text/html; charset=utf-8' }, body: page };
  }
  return { status: '404 Not Found', headers: { 'content-type': 'text/plain' }, body: 'not found' };
}

/** A status line or header value as a server may put it on the wire: any byte but CR, LF and NUL. */
const wire = (text: string) => Buffer.from(text.replace(/[\r\n\u0000]/g, ' '), 'latin1');

function send(socket: Socket, { status, headers, body }: Answer) {
  const payload = Buffer.from(body, 'utf8');
  const lines = [Buffer.concat([Buffer.from('HTTP/1.1 '), wire(status)])];
  for (const [name, value] of Object.entries(headers))
    lines.push(Buffer.concat([Buffer.from(`${name}: `), wire(value)]));
  lines.push(Buffer.from(`content-length: ${payload.length}`), Buffer.from('connection: close'));
  const crlf = Buffer.from('\r\n');
  socket.end(Buffer.concat([...lines.flatMap((line) => [line, crlf]), crlf, payload]));
}

export function startHostileTextServer(textFor: (seed: number) => string): Promise<HostileTextServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', (chunk) => {
      const path = /^[A-Z]+ (\S+)/.exec(chunk.toString('latin1'))?.[1] ?? '/';
      const [, seed = '0', role = '', rest = ''] = /^\/(\d+)\/([a-z]+)(.*)$/.exec(path) ?? [];
      send(socket, answerFor(role, rest, textFor(Number(seed)), seed));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      const close = () =>
        new Promise<void>((done) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => done());
        });
      resolve({ url: `http://127.0.0.1:${port}`, close });
    });
  });
}
