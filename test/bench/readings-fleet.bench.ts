// Readings stored per second with 500 devices connected at once, against one device storing as many: the real
// backend and the stand-in, with devices speaking the real protocol over real sockets (test/support/reading-sender.ts:
// readings frames within the unacknowledged window, resent after a close). A reading counts once its ack is back,
// and an ack covers only readings the backend has stored.
import { MongoClient } from 'mongodb';
import type { BenchRow, Scenario } from './scenario.ts';
import { interleavedMedians } from './scenario.ts';
import { fmt } from './load.ts';
import { startReadingSender, type ReadingSender } from '../support/reading-sender.ts';
import { spawnService } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { stopAll } from '../support/spawn-process.ts';
import { waitFor } from '../support/deadline.ts';
import { DEVICE_SEND_PACE } from '../../lib/device-protocol.ts';
import { READINGS_COLLECTION } from '../../backend/readings/reading-store.ts';

const FLEET = 500;
// Each device at the shipped device's pace, with frames of 800 readings (about 60 KB, under the 64 KiB limit): one
// device alone sends as fast as the protocol lets it.
const SENDING = { perFrame: 800, framesPerSecond: DEVICE_SEND_PACE.perSecond };

/** Starts `count` devices and waits until each has had a first reading acknowledged: all connected at once. */
async function connectDevices(url: string, name: string, count: number): Promise<ReadingSender[]> {
  const senders = Array.from({ length: count }, (_, i) =>
    startReadingSender(url, { deviceId: `${name}-${i}`, session: `${name}-${i}-${process.pid}`, ...SENDING }),
  );
  for (const sender of senders) sender.make(1);
  await waitFor(() => senders.every((sender) => sender.acked === 1), { timeout: 60_000, what: `${count} connected` });
  return senders;
}

/** Milliseconds for `senders` to have `total` more readings stored, shared out evenly. */
async function storeReadings(senders: ReadingSender[], total: number): Promise<number> {
  const start = performance.now();
  for (const sender of senders) sender.make(total / senders.length);
  await waitFor(() => senders.every((sender) => sender.acked === sender.made), {
    timeout: 120_000,
    interval: 10,
    what: `${fmt(total)} readings stored by ${senders.length} devices`,
  });
  return performance.now() - start;
}

const readingsFleet: Scenario = async ({ quick }) => {
  const rounds = quick ? 3 : 7;
  const total = 50_000; // 100 readings a device in the fleet: every device sends in every round
  const mongo = await startMongoProcess();
  const client = new MongoClient(mongo.uri);
  const senders: ReadingSender[] = [];
  try {
    const backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri } });
    await waitFor(async () => (await fetch(`${backend.url}/api/ready`)).status === 200, { what: 'backend ready' });
    const one = await connectDevices(backend.url, 'alone', 1);
    const fleet = await connectDevices(backend.url, 'fleet', FLEET);
    senders.push(...one, ...fleet);
    // Warm-up, both: V8 compiles the backend and the stand-in during the first tens of thousands.
    await storeReadings(one, total);
    await storeReadings(fleet, total);
    const ms = await interleavedMedians(
      rounds,
      () => storeReadings(fleet, total),
      () => storeReadings(one, total),
    );
    // Every acknowledged reading is in the database once: the rate counts readings stored, not readings sent.
    const made = senders.reduce((sum, sender) => sum + sender.made, 0);
    const { n: stored } = await client.db('app').command({ count: READINGS_COLLECTION });
    if (stored !== made) throw new Error(`${fmt(made)} readings acknowledged, ${fmt(stored)} stored`);
    const rate = { ours: (total / ms.ours) * 1000, baseline: (total / ms.baseline) * 1000 };
    const ratio = rate.ours / rate.baseline;
    const perRound = `${fmt(total)} readings a round, median of ${rounds}`;
    const row: BenchRow = {
      scenario: `readings stored/s, ${FLEET} devices connected at once (${perRound})`,
      baseline: `one device ${fmt(rate.baseline)}/s`,
      ours: `${fmt(rate.ours)}/s`,
      ratio: `${ratio.toFixed(2)}×`,
      target: '≥ 0.85×',
      ok: ratio >= 0.85,
    };
    return [row];
  } finally {
    for (const sender of senders) sender.stop();
    await client.close();
    await stopAll();
    await mongo.stop();
  }
};

export default readingsFleet;
