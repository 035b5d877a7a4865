// Test support: the device stack the device tests and fault runs share — the MongoDB stand-in, a real backend on
// it, a socat pty pair and a real device service reading that pty and sending to that backend, with a spool of its
// own that a restarted device process finds again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMongoStandin, type MongoStandin, type MongoStandinOptions } from '../../dev/mongo-standin/server.ts';
import { ptyDir, removePtyDir, startPtyPair, type PtyPair } from './pty-pair.ts';
import { startBackend, startDevice } from './device-services.ts';
import { waitFor } from './deadline.ts';
import type { Service } from './spawn-service.ts';

export interface DeviceStack {
  mongo: MongoStandin;
  /** The current pty pair; `recreatePty()` replaces it at the same paths. */
  pty: PtyPair;
  /** The device process started last (`restartDevice()` replaces it). */
  device: Service;
  /** The device's DEVICE_SPOOL_DIR, kept across `restartDevice()` and removed by `stop()`. */
  spoolDir: string;
  /** Every backend process started, in order: a restarted backend has its own stdout. */
  backends: Service[];
  /** The backend started last. */
  backend(): Service;
  /** Starts a backend on the last one's port (after it was killed) and records it. */
  restartBackend(): Promise<Service>;
  /** Starts a device process on the last one's port and spool (after it exited), and records it. */
  restartDevice(): Promise<Service>;
  /** Starts a new pty pair at the same paths (after `pty.stop()`), as when the adapter is plugged back in. */
  recreatePty(): Promise<PtyPair>;
  /** Stops the device, every backend, socat and the stand-in, and removes the pty links. */
  stop(): Promise<void>;
}

export interface DeviceStackOptions {
  /** Extra environment for the device service (SERIAL_PATH and BACKEND_URL are set here). */
  deviceEnv?: Record<string, string | undefined>;
  /** Extra environment for the first backend (a restarted one gets none). */
  backendEnv?: Record<string, string>;
  /** Wait until the device and the backend both answer /api/ready with 200 (default true). */
  ready?: boolean;
  /** The stand-in's hooks (a test that makes the database fail some commands). */
  mongo?: Pick<MongoStandinOptions, 'onCommand'>;
}

export async function startDeviceStack({
  deviceEnv = {},
  backendEnv = {},
  ready = true,
  mongo: mongoOptions = {},
}: DeviceStackOptions = {}): Promise<DeviceStack> {
  const mongo = await startMongoStandin(mongoOptions);
  const dir = ptyDir();
  const spoolDir = mkdtempSync(join(tmpdir(), 'device-stack-spool-'));
  const backends: Service[] = [];
  const stack = { mongo, backends, spoolDir, backend: () => backends.at(-1)! } as DeviceStack;
  const env = () => ({
    SERIAL_PATH: stack.pty.devicePath,
    BACKEND_URL: stack.backend().url,
    DEVICE_SPOOL_DIR: spoolDir,
    ...deviceEnv,
  });
  try {
    stack.pty = await startPtyPair(dir);
    backends.push(await startBackend(mongo.url, undefined, backendEnv));
    stack.device = await startDevice(env());
  } catch (error) {
    await Promise.all([...backends.map((b) => b.stop()), stack.pty?.stop()]);
    await mongo.close();
    removePtyDir(dir);
    rmSync(spoolDir, { recursive: true, force: true });
    throw error;
  }
  stack.restartDevice = async () => (stack.device = await startDevice(env(), stack.device.port));
  stack.restartBackend = async () => {
    const started = await startBackend(mongo.url, stack.backend().port);
    backends.push(started);
    return started;
  };
  stack.recreatePty = async () => (stack.pty = await startPtyPair(dir));
  stack.stop = async () => {
    await Promise.all([stack.device.stop(), ...backends.map((b) => b.stop()), stack.pty.stop()]);
    await mongo.close();
    removePtyDir(dir);
    rmSync(spoolDir, { recursive: true, force: true });
  };
  if (ready) {
    try {
      for (const [what, service] of [
        ['device', stack.device],
        ['backend', stack.backend()],
      ] as const) {
        await waitFor(async () => (await fetch(`${service.url}/api/ready`)).status === 200, {
          timeout: 10_000,
          what: `${what} ready`,
        });
      }
    } catch (error) {
      await stack.stop();
      throw error;
    }
  }
  return stack;
}

/** The last `count` log lines of the device and of every backend, for a failure to show what the services said. */
export function stackLogs(stack: DeviceStack, count = 25): string {
  const named = [['device', stack.device] as const, ...stack.backends.map((b, i) => [`backend #${i + 1}`, b] as const)];
  return named
    .map(([name, service]) => `--- ${name}, last lines:\n${service.lines.slice(-count).join('\n')}`)
    .join('\n');
}
