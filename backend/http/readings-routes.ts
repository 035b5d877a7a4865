// GET /api/readings and GET /api/devices: stored readings and the devices' summaries, read from the database. A
// bad query is a 400 and a database that cannot answer in time a 503, each with a one-line `error`. Clients poll
// these: while the database is away, the 503s are summed into one warning per 5 s rather than a line each.
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { Logger } from '../../lib/logger.ts';
import { createSummedWarning, type SummedWarning } from '../../lib/summed-warning.ts';
import { DatabaseUnavailableError } from '../database/database-unavailable-error.ts';
import type { ReadingStore } from '../readings/reading-store.ts';
import { parseReadingsQuery } from '../readings/readings-query.ts';
import { parseDevicesQuery } from '../readings/devices-query.ts';

export interface ReadingsRoutesOptions {
  store: Pick<ReadingStore, 'readings' | 'devices'>;
  log: Logger;
  /** Runs before each route (backend/http/read-gate.ts outside local mode); unset: the routes are open. */
  gate?: MiddlewareHandler;
}

/** The paths these routes serve: the access log keeps them at debug, since 503s here are summed instead. */
export const READINGS_PATHS = ['/api/readings', '/api/devices'];

const NO_STORE = { 'Cache-Control': 'no-store' };

export function createReadingsRoutes({ store, log, gate = (_c, next) => next() }: ReadingsRoutesOptions): Hono {
  const app = new Hono();
  const unavailable = createSummedWarning(
    log,
    (n) => `answered ${n} read${n === 1 ? '' : 's'} of stored readings with 503: the database is unavailable`,
  );
  const answer = (c: Context, read: () => Promise<object>) => answerFrom(c, read, unavailable);

  app.get('/api/readings', gate, async (c) => {
    const query = parseReadingsQuery(new URL(c.req.url).searchParams);
    if ('error' in query) return c.json({ error: query.error }, 400, NO_STORE);
    return answer(c, async () => ({ readings: await store.readings(query) }));
  });

  app.get('/api/devices', gate, (c) => {
    const query = parseDevicesQuery(new URL(c.req.url).searchParams);
    if ('error' in query) return c.json({ error: query.error }, 400, NO_STORE);
    return answer(c, () => store.devices(query));
  });

  return app;
}

async function answerFrom(c: Context, read: () => Promise<object>, unavailable: SummedWarning): Promise<Response> {
  try {
    return c.json(await read(), 200, NO_STORE);
  } catch (error) {
    if (!(error instanceof DatabaseUnavailableError)) throw error;
    unavailable.note({ path: c.req.path, reason: error.message });
    return c.json({ error: `database unavailable: ${error.message}` }, 503, { ...NO_STORE, 'Retry-After': '1' });
  }
}
