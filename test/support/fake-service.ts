// Test support: a real HTTP server on a free loopback port whose routes answer, hang, stall or drop on demand.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, type Listening } from './listen.ts';

export { healthyBody, readyBody } from './health-bodies.ts';

export type FakeRoute =
  | { status: number; body: unknown }
  /** Accepts the request and never answers. */
  | 'hang'
  /** Sends headers and part of a body, then nothing. */
  | 'stall-body'
  /** Closes the connection without an answer. */
  | 'drop';

export interface FakeService extends Listening {
  /** Change behaviour between requests; a path not listed answers 404. */
  routes: Record<string, FakeRoute>;
  /** Paths requested so far, in order. */
  hits: string[];
}


export async function startFakeService(routes: Record<string, FakeRoute>): Promise<FakeService> {
  const hits: string[] = [];
  const service = { routes, hits } as FakeService;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    hits.push(path);
    const route = service.routes[path];
    if (route === 'hang') return;
    if (route === 'drop') return void req.socket.destroy();
    if (route === 'stall-body') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.write('{"status":');
    }
    const { status, body } = route ?? { status: 404, body: { error: 'not found' } };
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  return Object.assign(service, await listen(handler));
}
