// GET /api/devices at 100, 1,000 and 10,000 devices: the real backend against a stand-in process whose `devices`
// collection is filled through the driver. The baseline is the smallest fleet: the list should stay flat.
import { MongoClient } from 'mongodb';
import type { BenchRow, Scenario } from './scenario.ts';
import { median } from './scenario.ts';
import { fmt } from './load.ts';
import { READ_AUTH, spawnService } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { stopAll } from '../support/spawn-process.ts';
import { waitFor } from '../support/deadline.ts';

const FLEETS = [100, 1_000, 10_000];

/** Milliseconds for each of `rounds` requests of `path`, one at a time; every one must answer 200. */
async function latencies(url: string, rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    const res = await fetch(url, { headers: READ_AUTH });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
    times.push(performance.now() - start);
  }
  return times;
}

const deviceList: Scenario = async ({ quick }) => {
  const rounds = quick ? 10 : 30;
  const mongo = await startMongoProcess();
  const client = new MongoClient(mongo.uri);
  try {
    const backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri } });
    await waitFor(async () => (await fetch(`${backend.url}/api/ready`)).status === 200, { what: 'backend ready' });
    const devices = client.db('app').collection<{ _id: string }>('devices');
    const medians = new Map<number, { page: number; attention: number }>();
    let filled = 0;
    for (const fleet of FLEETS) {
      const docs = Array.from({ length: fleet - filled }, (_, i) => {
        const n = filled + i;
        const at = new Date(Date.UTC(2026, 0, 1) + n * 1000);
        return {
          _id: `dev-${String(n).padStart(6, '0')}`,
          session: 's1',
          latestKey: `${at.toISOString()}|${String(n).padStart(16, '0')}`,
          lastReading: { session: 's1', seq: n, timestamp: at, value: `v${n}` },
          readingsStored: n,
          connected: n % 3 === 0,
          replica: 'bench',
          connection: `c${n}`,
          lastSeenAt: new Date(),
          backlog: n % 7,
        };
      });
      await devices.insertMany(docs);
      filled = fleet;
      // Warmed up first at every size, so the smallest fleet's baseline is not a cold backend's.
      await latencies(`${backend.url}/api/devices?limit=100`, rounds);
      await latencies(`${backend.url}/api/devices?attention=20`, rounds);
      const page = await latencies(`${backend.url}/api/devices?limit=100`, rounds);
      const attention = await latencies(`${backend.url}/api/devices?attention=20`, rounds);
      medians.set(fleet, { page: median(page), attention: median(attention) });
    }
    const base = medians.get(FLEETS[0]!)!;
    return FLEETS.slice(1).flatMap((fleet): BenchRow[] => {
      const { page, attention } = medians.get(fleet)!;
      return [
        ['first page of 100', page, base.page],
        ['20 needing attention', attention, base.attention],
      ].map(([what, ours, baseline]) => ({
        scenario: `GET /api/devices, ${what}, ${fmt(fleet)} devices (median of ${rounds})`,
        baseline: `${fmt(FLEETS[0]!)} devices ${(baseline as number).toFixed(1)} ms`,
        ours: `${(ours as number).toFixed(1)} ms`,
        ratio: `${((ours as number) / (baseline as number)).toFixed(2)}×`,
        target: '≤ 3× and < 250 ms',
        ok: (ours as number) / (baseline as number) <= 3 && (ours as number) < 250,
      }));
    });
  } finally {
    await client.close();
    await stopAll();
    await mongo.stop();
  }
};

export default deviceList;
