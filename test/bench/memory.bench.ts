// Memory the backend and the device service keep: idle, after a warm-up, and after 100k probes. Judged on what is
// left after a full garbage collection; resident memory is reported beside it (V8 lets garbage pile up in the old
// generation between collections, so resident memory rises by several MiB with nothing leaked).
import autocannon from 'autocannon';
import { existsSync } from 'node:fs';
import type { BenchRow, Scenario } from './scenario.ts';
import { fmt } from './load.ts';
import { msUntilStatus } from './readiness-timer.ts';
import { rssMiB, mib } from '../faults/support/process-stats.ts';
import { spawnService, root, type Service } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { freePort } from '../../tools/free-port.ts';
import { sleep } from '../support/deadline.ts';
import { keptAfterGc, type KeptMemory } from './kept-after-gc.ts';
import { stopAll } from '../support/spawn-process.ts';

// Growth of the memory kept after a full collection, past the warm level, that still counts as flat: 100,000
// leaked requests of a few dozen bytes each would be several MiB.
const FLAT_MIB = 2;

const kept = (memory: KeptMemory) => memory.heapMiB + memory.externalMiB;

/** A service whose inspector listens on a port of its own, so the bench can ask it to collect garbage. */
async function spawnInspectable(entry: string, env: Record<string, string>): Promise<[Service, number]> {
  const inspectPort = await freePort();
  const service = await spawnService(entry, { env: { ...env, NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPort}` } });
  return [service, inspectPort];
}

/** `amount` probes, alternating /api/health and /api/ready, over 20 keep-alive connections. */
async function probe(url: string, amount: number) {
  const result = await autocannon({
    url,
    amount,
    connections: 20,
    requests: [{ path: '/api/health' }, { path: '/api/ready' }],
  });
  return result.errors + result.timeouts + result.non2xx;
}

const memory: Scenario = async () => {
  // Caches fill and code is compiled during the first probes: growth is judged from the warm level on.
  const warmUp = 40_000;
  const amount = 100_000;
  try {
    const mongo = await startMongoProcess();
    const [backend, backendInspect] = await spawnInspectable('backend/main.ts', { MONGODB_URI: mongo.uri });
    await msUntilStatus(`${backend.url}/api/ready`, 200, 10_000);
    const services: [string, Service, number][] = [['backend', backend, backendInspect]];
    if (existsSync(`${root}device/main.ts`)) {
      // Emulator mode (NODE_ENV=local): a reading a second travels to the backend while the probes run.
      const env = { NODE_ENV: 'local', BACKEND_URL: backend.url, DEVICE_ID: 'bench' };
      const [device, deviceInspect] = await spawnInspectable('device/main.ts', env);
      await msUntilStatus(`${device.url}/api/ready`, 200, 10_000);
      services.push(['device', device, deviceInspect]);
    }
    const rows: BenchRow[] = [];
    for (const [name, service, inspectPort] of services) {
      await sleep(1000);
      const idle = await keptAfterGc(inspectPort);
      let failures = await probe(service.url, warmUp);
      const warm = await keptAfterGc(inspectPort);
      const warmRss = rssMiB(service.pid);
      failures += await probe(service.url, amount);
      const after = await keptAfterGc(inspectPort);
      const afterRss = rssMiB(service.pid);
      const growth = kept(after) - kept(warm);
      const stages = [idle, warm, after].map((memory) => mib(kept(memory))).join(' → ');
      const resident = `resident ${mib(warmRss)} → ${mib(afterRss)}`;
      const probes = `after ${fmt(warmUp)} warm-up probes, after ${fmt(amount)} more`;
      rows.push({
        scenario: `${name} memory after a full GC: idle, ${probes}`,
        baseline: '-',
        ours: `${stages} (${resident})${failures ? `, ${failures} failed probes` : ''}`,
        ratio: `${growth >= 0 ? '+' : ''}${mib(growth)} after warm-up`,
        target: `no growth after warm-up (≤ ${FLAT_MIB} MiB)`,
        ok: growth <= FLAT_MIB && failures === 0,
      });
    }
    return rows;
  } finally {
    await stopAll();
  }
};

export default memory;
