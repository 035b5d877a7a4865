// A 1,000-range `lost` message on a session that holds 30,000 recorded ranges: the real backend against a stand-in
// process, timed from the message to the ack past it, while an honest device sends a frame at a time and times each
// ack (its p99 reported beside the figure), and the CPU time the backend and the stand-in each spent per message. Each
// message's ranges are the odd numbers of its span; the even ones were
// sent first as readings, stored and waiting past the gaps, so the ranges stay disjoint and the ack ends the span.
import WebSocket from 'ws';
import type { BenchRow, Scenario } from './scenario.ts';
import { median } from './scenario.ts';
import { spawnService, TEST_DEVICE_TOKEN } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { stopAll } from '../support/spawn-process.ts';
import { waitFor, withDeadline } from '../support/deadline.ts';
import { DEVICE_SOCKET_PATH, lostFrame, parseAck, type SeqRange } from '../../lib/device-protocol.ts';
import { cpuMs } from './process-cpu.ts';

const RANGES = 1000;
const RECORDED = 30_000;
const BOUND_MS = 100;

/** A device socket that says hello and resolves each wait once an ack of its session reaches a seq. */
async function deviceSocket(baseUrl: string, deviceId: string, session: string) {
  const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + DEVICE_SOCKET_PATH, {
    headers: { Authorization: `Bearer ${TEST_DEVICE_TOKEN}` },
    perMessageDeflate: false,
  });
  let acked = 0;
  const waiters: Array<{ seq: number; resolve: () => void }> = [];
  ws.on('message', (data) => {
    const ack = parseAck(String(data));
    if (ack?.session !== session) return;
    acked = Math.max(acked, ack.seq);
    for (const w of waiters.filter((w) => w.seq <= acked)) w.resolve();
  });
  await withDeadline(new Promise((resolve) => ws.once('open', resolve)), 5000, `${deviceId} socket open`);
  ws.send(JSON.stringify({ type: 'hello', deviceId, session }));
  const at = new Date().toISOString();
  return {
    ws,
    readings: (seqs: number[]) =>
      ws.send(
        JSON.stringify({
          type: 'readings',
          deviceId,
          session,
          readings: seqs.map((seq) => ({ seq, timestamp: at, value: `v${seq}` })),
        }),
      ),
    lost: (ranges: SeqRange[]) => ws.send(lostFrame({ deviceId, session }, 'evicted', ranges)),
    acked: (seq: number) =>
      withDeadline(
        new Promise<void>((resolve) => (acked >= seq ? resolve() : waiters.push({ seq, resolve }))),
        30_000,
        `${deviceId} ack of ${seq}`,
      ).catch((error) => {
        throw new Error(`${(error as Error).message} (acked ${acked})`);
      }),
  };
}

/** Message `k`'s span: its 1,000 odd numbers lost, the even ones between them readings. */
function span(k: number) {
  const base = k * 2 * RANGES;
  const ranges: SeqRange[] = Array.from({ length: RANGES }, (_, i) => [base + 2 * i + 1, base + 2 * i + 1]);
  return { ranges, evens: ranges.map(([from]) => from + 1), end: base + 2 * RANGES };
}

const lossDeclarations: Scenario = async ({ quick }) => {
  const rounds = quick ? 3 : 10;
  const mongo = await startMongoProcess();
  try {
    const backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri, LOG_LEVEL: 'warn' } });
    await waitFor(async () => (await fetch(`${backend.url}/api/ready`)).status === 200, { what: 'backend ready' });
    const lossy = await deviceSocket(backend.url, 'lossy', 's1');
    const declare = async (k: number) => {
      const { ranges, evens, end } = span(k);
      // Two frames: a thousand readings would pass the 64 KiB a frame may hold.
      lossy.readings(evens.slice(0, RANGES / 2));
      lossy.readings(evens.slice(RANGES / 2));
      const start = performance.now();
      lossy.lost(ranges);
      await lossy.acked(end);
      return performance.now() - start;
    };
    for (let k = 0; k < RECORDED / RANGES; k++) {
      await declare(k).catch((error) => {
        throw new Error(`${(error as Error).message}\n${backend.lines.slice(-10).join('\n')}`);
      });
    }
    const honest = await deviceSocket(backend.url, 'honest', 's1');
    const acks: number[] = [];
    let stop = false;
    const honestLoop = (async () => {
      for (let seq = 1; !stop; seq++) {
        const start = performance.now();
        honest.readings([seq]);
        await honest.acked(seq);
        acks.push(performance.now() - start);
      }
    })();
    // The CPU each process spent per round, so that the backend's own part is told apart from the stand-in's.
    const times: number[] = [];
    const cpu = { backend: [] as number[], standin: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      const before = { backend: cpuMs(backend.pid), standin: cpuMs(mongo.pid) };
      times.push(await declare(RECORDED / RANGES + round));
      cpu.backend.push(cpuMs(backend.pid) - before.backend);
      cpu.standin.push(cpuMs(mongo.pid) - before.standin);
    }
    stop = true;
    await honestLoop;
    lossy.ws.close();
    honest.ws.close();
    const ours = median(times);
    const p99 = [...acks].sort((a, b) => a - b)[Math.min(acks.length - 1, Math.floor(acks.length * 0.99))]!;
    const row: BenchRow = {
      scenario:
        `a ${RANGES.toLocaleString('en')}-range lost message, ${RECORDED.toLocaleString('en')} ranges recorded ` +
        `(median of ${rounds}); an honest device's ack p99 meanwhile`,
      baseline: `honest ack p99 ${p99.toFixed(0)} ms (${acks.length} acks)`,
      ours: `${ours.toFixed(0)} ms`,
      ratio: `${ours.toFixed(0)} ms`,
      target: `≤ ${BOUND_MS} ms`,
      ok: ours <= BOUND_MS,
    };
    const backendCpu = median(cpu.backend);
    const own: BenchRow = {
      scenario:
        'the same message: CPU time per round (its 1,000 readings and the ranges), the backend (both threads, ' +
        'the honest device too) against the stand-in',
      baseline: `stand-in ${median(cpu.standin).toFixed(0)} ms CPU`,
      ours: `backend ${backendCpu.toFixed(0)} ms CPU`,
      ratio: `${backendCpu.toFixed(0)} ms`,
      target: `≤ ${BOUND_MS} ms`,
      ok: backendCpu <= BOUND_MS,
    };
    return [row, own];
  } finally {
    await stopAll();
    await mongo.stop();
  }
};

export default lossDeclarations;
