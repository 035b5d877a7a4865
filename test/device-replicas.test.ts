// Two real backend processes (replicas) on one MongoDB stand-in and a real device service connected to the first:
// GET /api/devices on either replica says the same of the device, whether it is connected and its backlog, as the
// replica holding its socket writes them to the `devices` collection. The backlog grows while the database fails
// every write of readings (the device holds them unacknowledged) and drains to 0 once it takes them again.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Document } from 'bson';
import { READ_AUTH, type Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { waitFor } from './support/deadline.ts';
import { startDeviceStack, type DeviceStack } from './support/device-stack.ts';
import { startBackend } from './support/device-services.ts';

const test = suite('device state across backend replicas');
const DEVICE_ID = 'replicated-device';
// A heartbeat every 5 s and the time the write takes: both replicas agree well within this.
const AGREE_MS = 20_000;
let stack: DeviceStack;
let replicaB: Service | undefined;
/** While true, the stand-in makes every insert of readings fail (an insert without documents is refused). */
let failReadings = false;
let line = 0;

interface Listed {
  deviceId: string;
  connected: boolean;
  backlog: number | null;
  readingsStored: number;
  lastReading: { value: string } | null;
}

test.before(async () => {
  const onCommand = (command: Document) => {
    if (failReadings && command.insert === 'readings') delete command.documents;
  };
  stack = await startDeviceStack({ deviceEnv: { DEVICE_ID }, mongo: { onCommand } });
  replicaB = await startBackend(stack.mongo.url);
  await waitFor(async () => (await fetch(`${replicaB!.url}/api/ready`)).status === 200, {
    timeout: 10_000,
    what: 'replica B ready',
  });
});

test.after(async () => {
  await replicaB?.stop();
  await stack?.stop();
  await stopAll();
});

const replicaA = () => stack.backend();

/** The device as `replica` lists it (undefined while not listed). */
async function listed(replica: Service, query = 'limit=100'): Promise<Listed | undefined> {
  const response = await fetch(`${replica.url}/api/devices?${query}`, { headers: READ_AUTH });
  assert.is(response.status, 200, `${replica.url}/api/devices?${query}`);
  const { devices } = (await response.json()) as { devices: Listed[] };
  return devices.find((d) => d.deviceId === DEVICE_ID);
}

/**
 * Waits until both replicas list the device with `connected`, `backlog` and (when given) `readingsStored`, and list
 * it alike; returns both views. The two reads are not one instant: a write between them (a reading stored, a
 * heartbeat) is waited out rather than failed on.
 */
async function bothSay(connected: boolean, backlog: number, readingsStored?: number) {
  const views = await waitFor(
    async () => {
      const [a, b] = [await listed(replicaA()), await listed(replicaB!)];
      const agreed = [a, b].every(
        (v) =>
          v?.connected === connected &&
          v.backlog === backlog &&
          (readingsStored === undefined || v.readingsStored === readingsStored),
      );
      return agreed && JSON.stringify(a) === JSON.stringify(b) ? ([a!, b!] as const) : undefined;
    },
    { timeout: AGREE_MS, what: `both replicas listing connected ${connected}, backlog ${backlog} alike` },
  );
  return views;
}

const unacknowledged = async () =>
  ((await (await fetch(`${stack.device.url}/api/health`)).json()) as { readings: { unacknowledged: number } }).readings
    .unacknowledged;

function writeLines(count: number) {
  stack.pty.write(Array.from({ length: count }, () => `line-${(line += 1)}\n`).join(''));
}

test('connected with a backlog of 0 on both replicas once its readings are stored', async () => {
  writeLines(3);
  // Not "the device holds nothing": that is true before it has read the lines at all.
  const [a] = await bothSay(true, 0, 3);
  assert.equal(a.lastReading?.value, 'line-3');
  assert.is(await unacknowledged(), 0);
});

test('the database failing reading writes: both replicas list the backlog the device holds; then 0 again', async () => {
  failReadings = true;
  writeLines(4);
  await waitFor(async () => (await unacknowledged()) === 4, { timeout: 10_000, what: 'the device holding 4' });
  const [a, b] = await bothSay(true, 4);
  assert.equal(a, b);
  // The replica not holding the socket ranks it first among the devices needing attention.
  const first = await waitFor(() => listed(replicaB!, 'attention=1'), { what: 'listed for attention' });
  assert.equal([first.connected, first.backlog], [true, 4]);

  failReadings = false; // the backend's writer retries with backoff, stores them, acknowledges them
  await waitFor(async () => (await unacknowledged()) === 0, { timeout: 15_000, what: 'the 4 acknowledged' });
  await bothSay(true, 0);
});

test('the device stopped: both replicas list it disconnected, with the last backlog it reported', async () => {
  await stack.device.stop();
  const [a, b] = await bothSay(false, 0);
  assert.equal(a, b);
});

test.run();
