// One flood of a device token's sockets (flood-sockets.ts, a process of its own) against a running backend, with an
// honest device of another token sending a reading at a time and timing each ack, the backend's RSS sampled every
// 100 ms and /api/ready polled every 200 ms. Shared by the fault test (device-flood.fault.ts) and the bench row
// (test/bench/device-flood.bench.ts).
import WebSocket from 'ws';
import { root } from '../../support/spawn-service.ts';
import { spawnProcess } from '../../support/spawn-process.ts';
import { waitFor, withDeadline } from '../../support/deadline.ts';
import { rssMiB } from './process-stats.ts';
import { DEVICE_SOCKET_PATH, parseAck } from '../../../lib/device-protocol.ts';

export const FLOOD = { device: 'flood-device', token: 'flood-token-5b1f0c7a9e3d2846' };
export const HONEST = { device: 'honest-device', token: 'honest-token-2c8e4a6f1b9d7035' };
/** DEVICE_TOKENS naming both. */
export const FLOOD_TOKENS = `${FLOOD.device}:${FLOOD.token},${HONEST.device}:${HONEST.token}`;

export interface FloodResult {
  /** What the flood saw: sockets opened, closes by code, reasons by text, frames sent. */
  tally: { opened: number; sent: number; closes: Record<string, number>; reasons: Record<string, number> };
  /** RSS in MiB: the highest during the flood, and the last read once back within `afterSlackMiB` or `afterMs` on. */
  peak: number;
  after: number;
  /** The honest device's ack times, ms. */
  times: number[];
  /** The /api/ready answers that were not 200 (status and body, or why none came). */
  notReady: string[];
}

/** The honest device: one reading at a time, each ack timed, until `stop()`. */
export async function honestDevice(baseUrl: string) {
  const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + DEVICE_SOCKET_PATH, {
    headers: { Authorization: `Bearer ${HONEST.token}` },
    perMessageDeflate: false,
  });
  await withDeadline(new Promise((resolve) => ws.once('open', resolve)), 5000, 'honest socket open');
  const session = `honest-${Date.now()}`;
  ws.send(JSON.stringify({ type: 'hello', deviceId: HONEST.device, session }));
  let acked = 0;
  let wake = () => {};
  ws.on('message', (data) => {
    const ack = parseAck(String(data));
    if (ack?.session === session) acked = Math.max(acked, ack.seq);
    wake();
  });
  const times: number[] = [];
  let stopped = false;
  const loop = (async () => {
    for (let seq = 1; !stopped; seq++) {
      const start = performance.now();
      const value = `honest-${seq}`;
      ws.send(JSON.stringify({ type: 'reading', deviceId: HONEST.device, session, seq, timestamp: new Date(), value }));
      const acking = new Promise<void>((resolve) => (wake = () => acked >= seq && resolve()));
      await withDeadline(acking, 10_000, `the honest device's ack of ${seq}`);
      times.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    times,
    async stop() {
      stopped = true;
      await loop;
      ws.close();
    },
  };
}

/** Polls /api/ready until `stop()`, keeping the answers that were not 200. */
function readinessWatch(baseUrl: string) {
  const notReady: string[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const res = await fetch(`${baseUrl}/api/ready`, { signal: AbortSignal.timeout(5000) });
        const body = await res.text();
        if (res.status !== 200) notReady.push(`${res.status} ${body}`);
      } catch (error) {
        notReady.push(`no answer: ${(error as Error).cause ?? (error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return { notReady, stop: async () => ((stopped = true), await loop) };
}

/** Floods `backend` with `sockets` sockets of FLOOD's token for `floodMs`, and waits up to `afterMs` for its RSS. */
export async function runFlood(
  backend: { url: string; pid: number },
  {
    sockets,
    floodMs,
    afterMs,
    afterBoundMiB,
  }: { sockets: number; floodMs: number; afterMs: number; afterBoundMiB: number },
): Promise<FloodResult> {
  const honest = await honestDevice(backend.url);
  const ready = readinessWatch(backend.url);
  const proc = spawnProcess(
    process.execPath,
    ['--import', 'tsx', 'test/faults/support/flood-sockets.ts', backend.url, String(sockets), String(floodMs)],
    { cwd: root, env: { ...process.env, FLOOD_TOKEN: FLOOD.token, FLOOD_DEVICE: FLOOD.device } },
  );
  let peak = rssMiB(backend.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(backend.pid))), 100);
  const code = await proc.waitExit(floodMs + 30_000);
  clearInterval(sampler);
  await honest.stop();
  await ready.stop();
  if (code !== 0) throw new Error(`the flood exited ${code}\n${proc.lines.slice(-10).join('\n')}`);
  const tally = JSON.parse(proc.stdout.filter(Boolean).at(-1)!);
  let after = rssMiB(backend.pid);
  await waitFor(() => (after = rssMiB(backend.pid)) <= afterBoundMiB, {
    timeout: afterMs,
    interval: 250,
    what: `RSS back within ${afterBoundMiB} MiB`,
  }).catch(() => {}); // not back in time: `after` says where it stayed, for the caller to judge
  return { tally, peak, after, times: honest.times, notReady: ready.notReady };
}

/** The p-th percentile (0 < p ≤ 1) of `values`, nearest rank. */
export const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(values.length * p) - 1)] ?? NaN;
