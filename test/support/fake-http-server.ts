// Test support: the one fake HTTP server and its hostile modes. `createFixtureHandler()` stands in for backend,
// device service and frontend at once, the first path segment picking a behaviour (the smoke CLI's fixture);
// `startFakeService()` serves a route table a test changes between requests (the frontend's upstreams).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { healthyBody, readyBody } from './health-bodies.ts';
import { listen, type Listening } from './listen.ts';

export { healthyBody, readyBody };

type Behaviour = (req: IncomingMessage, res: ServerResponse, rest: string) => void;

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
const html = (res: ServerResponse, status: number, body: string, head = '') => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>t</title>
<link rel="icon" href="data:,">${head}</head><body>${body}</body></html>`);
};
/** A healthy page that, once loaded, moves on (as `move` says) to `good`, a healthy page beside it. */
const movesOn =
  (move: { head?: string; body?: string }): Behaviour =>
  (_req, res, rest) =>
    rest === '/good'
      ? html(res, 200, '<h1 style="color:green">moved on, stack is up</h1>')
      : html(res, 200, `<h1>moving on</h1>${move.body ?? ''}`, move.head);
/** Redirects to `location(path)`, whatever the path. */
const redirectTo =
  (location: (path: string) => string): Behaviour =>
  (req, res) =>
    res.writeHead(302, { location: location(req.url ?? '/') }).end();

// The checks a backend (database) and a device service (serial, backend) always report: the healthy fixture
// stands in for either, so it reports them all.
const EVERY_CHECK = { database: 'connected', serial: 'emulator', backend: 'connected' };
/** A healthy service whose readiness lists only these checks: one kind of service, where another may be probed. */
const healthyWith =
  (checks: Record<string, string>): Behaviour =>
  (req, res, rest) =>
    rest === '/api/ready' ? json(res, 200, readyBody('ready', checks)) : healthy(req, res, rest);

/** A healthy service: health, readiness and a frontend page that loads cleanly. */
const healthy: Behaviour = (_req, res, rest) => {
  if (rest === '/api/health') return json(res, 200, healthyBody());
  if (rest === '/api/ready') return json(res, 200, readyBody('ready', EVERY_CHECK));
  if (rest === '/' || rest === '') return html(res, 200, '<h1 style="color:green">stack is up</h1>');
  json(res, 404, { error: 'not found' });
};

/** A healthy service that reports `version` as its release (the smoke's --expect-version). */
export const releaseBehaviour =
  (version: string): Behaviour =>
  (req, res, rest) =>
    rest === '/api/health' ? json(res, 200, healthyBody({ version })) : healthy(req, res, rest);

export const behaviours: Record<string, Behaviour> = {
  ok: healthy,
  'backend-only': healthyWith({ database: 'connected' }),
  'release-v1': releaseBehaviour('v1'),
  'device-only': healthyWith({ serial: 'emulator', backend: 'connected' }),
  // Accepts the connection and never answers.
  hang: () => {},
  // Sends headers and the first bytes of the body, then stalls.
  'slow-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"status":"ok",');
  },
  // 200, then a body that never ends, sent as fast as the client reads it.
  'endless-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    res.write('{"status":"ok",');
    let closed = false;
    res.once('close', () => (closed = true));
    const pump = () => {
      while (!closed && res.write(chunk));
      if (!closed) res.once('drain', pump);
    };
    pump();
  },
  // 200, then a body that arrives one byte every 50 ms and never ends: no read ever waits long.
  'trickle-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"status":"ok",');
    const timer = setInterval(() => res.write(' '), 50);
    res.once('close', () => clearInterval(timer));
  },
  html: (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>Welcome to nginx!</p>'),
  'not-object': (_req, res) => json(res, 200, ['ok']),
  'wrong-status': (_req, res, rest) =>
    json(
      res,
      200,
      rest === '/api/ready'
        ? { ...readyBody('ready', EVERY_CHECK), status: 'starting' }
        : { ...healthyBody(), status: 'degraded' },
    ),
  'wrong-types': (_req, res) =>
    json(res, 200, { status: 'ok', timestamp: 1_700_000_000, uptime: '12', environment: 5, checks: 'fine' }),
  'missing-fields': (_req, res) => json(res, 200, { status: 'ok' }),
  'not-ready': (_req, res, rest) =>
    rest === '/api/ready'
      ? json(res, 503, {
          status: 'not ready',
          timestamp: new Date().toISOString(),
          checks: { database: 'disconnected' },
        })
      : healthy(_req, res, rest),
  'device-degraded': (_req, res, rest) =>
    rest === '/api/ready'
      ? json(res, 503, {
          status: 'degraded',
          timestamp: new Date().toISOString(),
          checks: { serial: 'emulator', backend: 'disconnected' },
        })
      : healthy(_req, res, rest),
  error500: (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error: boom'),
  // Redirects to itself forever.
  loop: (req, res) => res.writeHead(302, { location: req.url ?? '/' }).end(),
  elsewhere: (_req, res) => res.writeHead(302, { location: '/login' }).end(),
  // Redirects whose Location is no URL at all (a port out of range, an unclosed IPv6 bracket) or not http(s).
  'redirect-bad-port': redirectTo((path) => `http://127.0.0.1:99999${path}`),
  'redirect-bad-host': redirectTo(() => 'http://[::1'),
  'redirect-file': redirectTo((path) => `file://${path}`),
  'redirect-ftp': redirectTo((path) => `ftp://127.0.0.1${path}`),
  huge: (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < 20 && res.write(chunk)) sent++;
      if (sent >= 20) res.end();
      else res.once('drain', pump);
    };
    pump();
  },
  reset: (req) => req.socket.destroy(),
  page500: (_req, res) => html(res, 500, '<h1>500: the frontend is broken</h1>'),
  throws: (_req, res) => html(res, 200, '<h1>up</h1><script>throw new Error("boom from the page")</script>'),
  'console-error': (_req, res) => html(res, 200, '<h1>up</h1><script>console.error("widget failed")</script>'),
  'broken-image': (_req, res, rest) =>
    rest.startsWith('/missing') ? res.writeHead(404).end() : html(res, 200, '<h1>up</h1><img src="missing.png">'),
  // Healthy pages that go on to another page right after loading: a meta refresh, and location.replace() 50 ms on.
  'meta-refresh': movesOn({ head: '<meta http-equiv="refresh" content="0;url=good">' }),
  'replaces-itself': movesOn({
    body: '<script>addEventListener("load", () => setTimeout(() => location.replace("good"), 50))</script>',
  }),
  // The document arrives but an image never does, so the page's load event never fires.
  'slow-page': (_req, res, rest) => {
    if (!rest.startsWith('/pending')) html(res, 200, '<h1>loading</h1><img src="pending.png">');
  },
};

/** Routes `/<behaviour>/<rest>`; `/` alone is the healthy frontend page. */
export function createFixtureHandler(extra: Record<string, Behaviour> = {}): RequestListener {
  const all = { ...behaviours, ...extra };
  return function fixture(req, res) {
    const match = /^\/([^/]+)(\/.*)?$/.exec(req.url ?? '/');
    const behaviour = match ? all[match[1]!] : undefined;
    if (!behaviour) return healthy(req, res, req.url ?? '/');
    behaviour(req, res, match?.[2] ?? '/');
  };
}

export type FakeRoute =
  | { status: number; body: unknown }
  /** An answer made from the request's query (a paged list, say). */
  | ((query: URLSearchParams) => { status: number; body: unknown })
  /** Accepts the request and never answers. */
  | 'hang'
  /** Sends headers and part of a body, then nothing. */
  | 'stall-body'
  /** Closes the connection without an answer. */
  | 'drop'
  /** 200, then a body without end, as fast as it is read. */
  | 'endless-body'
  /** 200, then a body without end, one byte every 50 ms. */
  | 'trickle-body';

export interface FakeService extends Listening {
  /**
   * Change behaviour between requests. A key with a query (`/api/readings?deviceId=a&limit=60`) matches that exact
   * query first; a path alone matches any query; a path not listed answers 404.
   */
  routes: Record<string, FakeRoute>;
  /** Paths requested so far, in order. */
  hits: string[];
  /** Paths with their queries, in order. */
  urls: string[];
}

/** The route table's hostile modes are the fixture's own behaviours. */
const hostileRoutes: Record<Exclude<FakeRoute, object>, Behaviour> = {
  hang: behaviours.hang!,
  'stall-body': behaviours['slow-body']!,
  drop: behaviours.reset!,
  'endless-body': behaviours['endless-body']!,
  'trickle-body': behaviours['trickle-body']!,
};

export async function startFakeService(routes: Record<string, FakeRoute>): Promise<FakeService> {
  const hits: string[] = [];
  const urls: string[] = [];
  const service = { routes, hits, urls } as FakeService;
  const handler: RequestListener = (req, res) => {
    const { pathname: path, search } = new URL(req.url ?? '/', 'http://fake');
    hits.push(path);
    urls.push(path + search);
    const route = service.routes[path + search] ??
      service.routes[path] ?? { status: 404, body: { error: 'not found' } };
    if (typeof route === 'string') return hostileRoutes[route](req, res, path);
    const { status, body } = typeof route === 'function' ? route(new URLSearchParams(search)) : route;
    json(res, status, body);
  };
  return Object.assign(service, await listen(handler));
}
