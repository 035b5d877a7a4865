// Recovery of a full spool with an evicted gap: the spool is filled in-process (the shipped spool, 64 MiB, 16 MiB in
// `--quick`) until its oldest readings were evicted, the device service starts on it with the backend away, then the
// backend starts; timed from the backend's return (its first /api/ready 200, so its own start-up is not counted, but
// told beside) until the device's liveness body says nothing is unacknowledged and nothing is declared lost and
// unacknowledged (the evicted gap declared, recorded and acknowledged past).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchRow, Scenario } from './scenario.ts';
import { ms } from './readiness-timer.ts';
import { cpuMs } from './process-cpu.ts';
import { openReadingSpool } from '../../device/spool/reading-spool.ts';
import { createLogger } from '../../lib/logger.ts';
import { spawnService } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { ptyDir, removePtyDir, startPtyPair } from '../support/pty-pair.ts';
import { stopAll } from '../support/spawn-process.ts';
import { waitFor } from '../support/deadline.ts';
import { freePort } from '../../tools/free-port.ts';

const BOUND_MS = 10_000;

/** Pushes readings into a spool of `maxBytes` until it evicted some; what it holds and what it evicted. */
function fillSpool(dir: string, maxBytes: number): { held: number; evicted: number } {
  const log = createLogger({ name: 'bench', environment: 'production', level: 'silent' });
  const spool = openReadingSpool({ dir, session: 'filled', deviceId: 'recovering', maxBytes, log });
  try {
    for (let n = 1; spool.stats().dropped === 0; n++) spool.push(`n=${n} temperature_c=21.05`);
    const { unacknowledged, dropped } = spool.stats();
    return { held: unacknowledged, evicted: dropped };
  } finally {
    spool.close();
  }
}

const spoolRecovery: Scenario = async ({ quick }) => {
  const maxBytes = (quick ? 16 : 64) * 1024 * 1024;
  const spoolDir = mkdtempSync(join(tmpdir(), 'bench-spool-recovery-'));
  const ptys = ptyDir();
  const pty = await startPtyPair(ptys);
  try {
    const { held, evicted } = fillSpool(spoolDir, maxBytes);
    const mongo = await startMongoProcess();
    const backendPort = await freePort();
    const device = await spawnService('device/main.ts', {
      env: {
        SERIAL_PATH: pty.devicePath,
        BACKEND_URL: `http://127.0.0.1:${backendPort}`,
        DEVICE_ID: 'recovering',
        DEVICE_SPOOL_DIR: spoolDir,
        DEVICE_SPOOL_MAX_BYTES: String(maxBytes),
      },
      timeout: 60_000,
    });
    const readings = async () => {
      const res = await fetch(`${device.url}/api/health`, { signal: AbortSignal.timeout(2000) });
      return ((await res.json()) as { readings: { unacknowledged: number; declaredLost: number } }).readings;
    };
    const found = await readings();
    const spawned = performance.now();
    const backend = await spawnService('backend/main.ts', {
      env: { MONGODB_URI: mongo.uri },
      port: backendPort,
      waitPath: false,
    });
    // The backend is back when it says it is ready, polled every 5 ms; the device may already be sending by then.
    await waitFor(
      async () => {
        const res = await fetch(`${backend.url}/api/ready`, { signal: AbortSignal.timeout(1000) });
        await res.arrayBuffer();
        return res.status === 200;
      },
      { timeout: 60_000, interval: 5, what: 'the backend ready' },
    );
    const start = performance.now();
    const processes = { backend: backend.pid, 'stand-in': mongo.pid, device: device.pid };
    const cpuBefore = Object.values(processes).map(cpuMs);
    await waitFor(
      async () => {
        const { unacknowledged, declaredLost } = await readings();
        return unacknowledged === 0 && declaredLost === 0;
      },
      { timeout: 180_000, interval: 50, what: 'the full spool acknowledged' },
    );
    const took = performance.now() - start;
    // Each process's CPU during the drain: who the drain waited for (three processes taking turns add up to it).
    const cpu = Object.keys(processes)
      .map((name, i) => `${name} ${ms(cpuMs(Object.values(processes)[i]!) - cpuBefore[i]!)}`)
      .join(', ');
    const mib = maxBytes / 1024 / 1024;
    const row: BenchRow = {
      scenario:
        `backend ready → full ${mib} MiB spool (${held.toLocaleString('en-US')} readings, ` +
        `${found.declaredLost.toLocaleString('en-US')} evicted) at 0 unacknowledged`,
      baseline: '-',
      ours:
        `${ms(took)} (${Math.round((held / took) * 1000).toLocaleString('en-US')} readings/s; ${evicted} evicted; ` +
        `CPU ${cpu}; backend start-up to ready ${ms(start - spawned)}, not counted)`,
      ratio: `${(took / BOUND_MS).toFixed(2)} of bound`,
      target: `≤ ${ms(BOUND_MS)}`,
      ok: took <= BOUND_MS,
    };
    return [row];
  } finally {
    await stopAll();
    await pty.stop();
    removePtyDir(ptys);
    rmSync(spoolDir, { recursive: true, force: true });
  }
};

export default spoolRecovery;
