// The MongoDB stand-in's CPU per 100,000 readings written as the backend writes them (a batch by an unordered
// insertMany, then its device-summary bulkWrite, both with the backend's write concern): the stand-in alone, driven
// by the driver from this process, so that its share of the readings rows (spool recovery, drain) can be watched.
import { MongoClient } from 'mongodb';
import type { BenchRow, Scenario } from './scenario.ts';
import { cpuMs } from './process-cpu.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { stopAll } from '../support/spawn-process.ts';
import { storedUpdates, type DeviceSummaryDocument } from '../../backend/readings/device-summary.ts';
import type { ReadingDocument } from '../../backend/readings/reading-document.ts';

// What the backend writes in one go when a device's spool drains: every reading held, a few thousand.
const BATCH = 2000;

/** The readings of `[from, to)` as the backend makes them for the bench's device. */
function readings(from: number, to: number): ReadingDocument[] {
  const receivedAt = new Date();
  const docs: ReadingDocument[] = [];
  for (let seq = from; seq < to; seq++) {
    const value = `n=${seq} temperature_c=21.05`;
    docs.push({ deviceId: 'bench', session: 'bench', seq, timestamp: receivedAt, value, receivedAt });
  }
  return docs;
}

const standinInserts: Scenario = async ({ quick }) => {
  const total = quick ? 100_000 : 400_000;
  const mongo = await startMongoProcess();
  const client = await new MongoClient(mongo.uri).connect();
  try {
    const db = client.db();
    // The backend's indexes (backend/readings/reading-store.ts): the unique one is checked on every insert.
    await db.collection('readings').createIndexes([
      { key: { deviceId: 1, session: 1, seq: 1 }, name: 'deviceId_1_session_1_seq_1', unique: true },
      { key: { deviceId: 1, receivedAt: -1, seq: -1 }, name: 'deviceId_1_receivedAt_-1_seq_-1' },
    ]);
    const writeConcern = { w: 'majority' as const, j: true };
    const before = cpuMs(mongo.pid);
    for (let from = 1; from <= total; from += BATCH) {
      const docs = readings(from, Math.min(from + BATCH, total + 1));
      await db.collection<ReadingDocument>('readings').insertMany(docs, { ordered: false, writeConcern });
      const summary = storedUpdates(docs, [], `batch-${from}`);
      await db.collection<DeviceSummaryDocument>('devices').bulkWrite(summary, { ordered: true, writeConcern });
    }
    const perHundredK = ((cpuMs(mongo.pid) - before) / total) * 100_000;
    const stored = `${total.toLocaleString('en-US')} in batches of ${BATCH}`;
    const row: BenchRow = {
      scenario: `MongoDB stand-in: CPU per 100,000 readings stored (${stored})`,
      baseline: '-',
      ours: `${Math.round(perHundredK)} ms`,
      ratio: '-',
      target: 'reported only',
      ok: null,
    };
    return [row];
  } finally {
    await client.close();
    await stopAll();
  }
};

export default standinInserts;
