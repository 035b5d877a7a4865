// Resident memory of the backend and the device service: idle, after a warm-up, and after 100k probes.
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
import { stopAll } from '../support/spawn-process.ts';

// Growth past the warm level that still counts as flat: the heap's own sawtooth on a busy machine.
const FLAT_MIB = 8;

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
  // RSS climbs for the first ~40k probes while V8 sizes its heap, then stays flat: warm up past that.
  const warmUp = 40_000;
  const amount = 100_000;
  try {
    const mongo = await startMongoProcess(await freePort());
    const backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri } });
    await msUntilStatus(`${backend.url}/api/ready`, 200, 10_000);
    const services: [string, Service][] = [['backend', backend]];
    if (existsSync(`${root}device/main.ts`)) {
      // Emulator mode (NODE_ENV=local): a reading a second travels to the backend while the probes run.
      const device = await spawnService('device/main.ts', {
        env: { NODE_ENV: 'local', BACKEND_URL: backend.url, DEVICE_ID: 'bench' },
      });
      await msUntilStatus(`${device.url}/api/ready`, 200, 10_000);
      services.push(['device', device]);
    }
    const rows: BenchRow[] = [];
    for (const [name, service] of services) {
      await sleep(1000);
      const idle = rssMiB(service.pid);
      let failures = await probe(service.url, warmUp);
      const warm = rssMiB(service.pid);
      failures += await probe(service.url, amount);
      await sleep(500);
      const after = rssMiB(service.pid);
      const growth = after - warm;
      rows.push({
        scenario: `${name} resident memory: idle, after ${fmt(warmUp)} warm-up probes, after ${fmt(amount)} more`,
        baseline: '-',
        ours: `${mib(idle)} → ${mib(warm)} → ${mib(after)}${failures ? `, ${failures} failed probes` : ''}`,
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
