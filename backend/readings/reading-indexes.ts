// Creates the readings indexes at start-up, retrying until the database lets it: reads want them before the first
// reading arrives, and the writer inserts nothing before the unique one exists (reading-store.ts says why). Then,
// once, summarises the devices whose readings were stored before the `devices` collection existed.
import type { Logger } from '../../lib/logger.ts';
import { DatabaseUnavailableError } from '../database/database-unavailable-error.ts';
import type { ReadingStore } from './reading-store.ts';

export interface IndexesAtStartUp {
  /** Stops retrying (on shutdown). */
  stop(): void;
}

export function createIndexesAtStartUp({
  store,
  log,
  retryMs = 1000,
}: {
  store: Pick<ReadingStore, 'ensureIndexes' | 'backfill'>;
  log: Logger;
  retryMs?: number;
}): IndexesAtStartUp {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let warned = false;

  async function attempt() {
    timer = undefined;
    try {
      await store.ensureIndexes();
      log.info('readings indexes are in place');
      const summarised = await store.backfill();
      if (summarised > 0) log.info({ devices: summarised }, 'summarised devices stored before the device list existed');
    } catch (error) {
      if (stopped) return;
      // The database monitor already says when the database is away; anything else is worth one warning.
      const notConnected = error instanceof DatabaseUnavailableError && error.code === 'not-connected';
      if (!warned && !notConnected) {
        log.warn(
          { reason: (error as Error).message },
          `cannot create the readings indexes yet; retrying every ${retryMs} ms`,
        );
        warned = true;
      }
      timer = setTimeout(() => void attempt(), retryMs);
      timer.unref();
    }
  }
  void attempt();

  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
