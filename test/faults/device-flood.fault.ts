// Fault: a flood of one device token, 10 and then 100 sockets, half at the device message rate and half at three
// times it, each opening again when closed, against the backend on the MongoDB stand-in, while an honest device of
// another token sends a reading at a time and times each ack. Past DEVICE_SOCKETS_PER_TOKEN the flood's sockets are
// closed with 1013 and the reason; the backend's RSS stays within its baseline + 64 MiB and is back within 16 MiB of
// it 10 s after the flood stops; the honest device's ack p99 stays within 250 ms; and /api/ready, whenever it is not
// ready, names the `devices` check behind.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { root, spawnService, type Service } from '../support/spawn-service.ts';
import { startMongoProcess, type MongoProcess } from '../support/mongo-process.ts';
import { spawnProcess, stopAll } from '../support/spawn-process.ts';
import { waitFor, withDeadline } from '../support/deadline.ts';
import { freePort } from '../../tools/free-port.ts';
import { mib, rssMiB } from './support/process-stats.ts';
import { DEVICE_SOCKET_PATH, parseAck } from '../../lib/device-protocol.ts';

const FLOOD = { device: 'flood-device', token: 'flood-token-5b1f0c7a9e3d2846' };
const HONEST = { device: 'honest-device', token: 'honest-token-2c8e4a6f1b9d7035' };
const PER_TOKEN = 4;
const FLOOD_MS = 10_000;
const PEAK_SLACK_MIB = 64;
const AFTER_SLACK_MIB = 16;
const AFTER_MS = 10_000;
const ACK_P99_MS = 250;
const TOO_MANY = `too many sockets for this device's token (DEVICE_SOCKETS_PER_TOKEN ${PER_TOKEN} open)`;

const test = suite('a flood of one device token');
let mongo: MongoProcess;
let backend: Service;
let baseline = 0;

test.before(async () => {
  mongo = await startMongoProcess(await freePort());
  backend = await spawnService('backend/main.ts', {
    env: {
      MONGODB_URI: mongo.uri,
      LOG_LEVEL: 'warn',
      DEVICE_TOKEN: undefined,
      DEVICE_TOKENS: `${FLOOD.device}:${FLOOD.token},${HONEST.device}:${HONEST.token}`,
      DEVICE_SOCKETS_PER_TOKEN: String(PER_TOKEN),
    },
  });
  await waitFor(async () => (await fetch(`${backend.url}/api/ready`)).status === 200, { what: 'backend ready' });
});

test.after(async () => {
  await stopAll();
  await mongo?.stop();
});

/** The honest device: one reading at a time, each ack timed, until `stop()`; its ack times. */
async function honestDevice() {
  const ws = new WebSocket(backend.url.replace(/^http/, 'ws') + DEVICE_SOCKET_PATH, {
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

/** Polls /api/ready until `stop()`: the bodies of the answers that were not 200. */
function readinessWatch() {
  const notReady: string[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const res = await fetch(`${backend.url}/api/ready`, { signal: AbortSignal.timeout(5000) });
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

const p99 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(values.length * 0.99) - 1)] ?? NaN;

async function flood(sockets: number) {
  const honest = await honestDevice();
  const ready = readinessWatch();
  const proc = spawnProcess(
    process.execPath,
    ['--import', 'tsx', 'test/faults/support/flood-sockets.ts', backend.url, String(sockets), String(FLOOD_MS)],
    { cwd: root, env: { ...process.env, FLOOD_TOKEN: FLOOD.token, FLOOD_DEVICE: FLOOD.device } },
  );
  let peak = rssMiB(backend.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(backend.pid))), 100);
  const code = await proc.waitExit(FLOOD_MS + 30_000);
  clearInterval(sampler);
  await honest.stop();
  await ready.stop();
  if (code !== 0) throw new Error(`the flood exited ${code}\n${proc.lines.slice(-10).join('\n')}`);
  const tally = JSON.parse(proc.stdout.filter(Boolean).at(-1)!);
  // Within 10 s of the flood's end, back within 16 MiB of the baseline.
  let after = rssMiB(backend.pid);
  await waitFor(() => (after = rssMiB(backend.pid)) <= baseline + AFTER_SLACK_MIB, {
    timeout: AFTER_MS,
    interval: 250,
    what: `RSS back within ${AFTER_SLACK_MIB} MiB of ${mib(baseline)}`,
  }).catch(() => {});
  const report = { sockets, peak: mib(peak), after: mib(after), p99: p99(honest.times), acks: honest.times.length };
  console.log(
    `    ${JSON.stringify({ ...report, baseline: mib(baseline), tally, notReady: ready.notReady.slice(0, 3) })}`,
  );
  if (backend.child.exitCode !== null) throw new Error(`the backend exited\n${backend.lines.slice(-20).join('\n')}`);
  return { tally, peak, after, times: honest.times, notReady: ready.notReady };
}

test('the baseline: the honest device alone, warm', async () => {
  const honest = await honestDevice();
  await waitFor(() => honest.times.length >= 50, { timeout: 20_000, what: '50 honest acks' });
  await honest.stop();
  baseline = rssMiB(backend.pid);
});

for (const sockets of [10, 100]) {
  const title = `${sockets} sockets of one token: past ${PER_TOKEN} closed with 1013, memory bounded, honest acks fast`;
  test(title, async () => {
    const { tally, peak, after, times, notReady } = await flood(sockets);
    assert.ok((tally.closes['1013'] ?? 0) >= sockets - PER_TOKEN, `at least ${sockets - PER_TOKEN} closed with 1013`);
    assert.ok(tally.reasons[TOO_MANY] >= sockets - PER_TOKEN, `the reason: ${JSON.stringify(tally.reasons)}`);
    assert.ok(peak <= baseline + PEAK_SLACK_MIB, `RSS peak ${mib(peak)} within ${mib(baseline)} + ${PEAK_SLACK_MIB}`);
    assert.ok(after <= baseline + AFTER_SLACK_MIB, `RSS after ${mib(after)} within ${mib(baseline)} + 16`);
    assert.ok(times.length > 0, 'the honest device was acknowledged');
    assert.ok(p99(times) <= ACK_P99_MS, `the honest ack p99 ${p99(times).toFixed(0)} ms ≤ ${ACK_P99_MS} ms`);
    for (const answer of notReady) assert.match(answer, /"devices":\{"state":"behind"|"devices":"behind"/);
  });
}

test.run();
