// Fault: SIGTERM while a client hammers the backend and the device service; nothing sent before it is lost.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnService, type Service } from '../support/spawn-service.ts';
import { sleep, waitFor } from '../support/deadline.ts';
import { stopAll } from '../support/spawn-process.ts';
import { startMongoStandin, type MongoStandin } from '../../dev/mongo-standin/server.ts';
import { ptyDir, removePtyDir, startPtyPair } from '../support/pty-pair.ts';
import { startBackend, startDevice } from '../support/device-services.ts';
import { startHammer, type Hammer, type Sample } from './support/hammer.ts';
import { errorOutput } from './support/service-health.ts';

const DRAIN_MS = 1500;
const EXIT_BOUND_MS = 10_000;
// A signal takes a moment to be delivered and handled; readiness must be 503 for requests sent after this.
const SIGNAL_GRACE_MS = 100;

const test = suite('SIGTERM under load');
let mongo: MongoStandin | undefined;
let hammer: Hammer | undefined;
const dirs: string[] = [];

test.after.each(async () => {
  await hammer?.stop();
  hammer = undefined;
  await stopAll();
  await mongo?.close();
  mongo = undefined;
  for (const dir of dirs.splice(0)) removePtyDir(dir);
});

const starters: Record<string, (drainMs: number) => Promise<Service>> = {
  backend: async (drainMs) => {
    mongo = await startMongoStandin();
    return spawnService('backend/main.ts', {
      env: { MONGODB_URI: `${mongo.url}/app`, SHUTDOWN_DELAY_MS: String(drainMs) },
    });
  },
  device: async (drainMs) => {
    mongo = await startMongoStandin();
    const backend = await startBackend(mongo.url);
    const dir = ptyDir();
    dirs.push(dir);
    const pty = await startPtyPair(dir);
    return startDevice({ SERIAL_PATH: pty.devicePath, BACKEND_URL: backend.url, SHUTDOWN_DELAY_MS: String(drainMs) });
  },
};

/** Starts the service, hammers it, sends SIGTERM after a second; returns what the client saw and how it exited. */
async function terminateUnderLoad(name: string, drainMs: number) {
  const service = await starters[name]!(drainMs);
  await waitFor(async () => (await fetch(`${service.url}/api/ready`)).status === 200, {
    timeout: 10_000,
    what: `${name} ready`,
  });
  hammer = startHammer(service.url, ['/api/health', '/api/ready'], { concurrency: 8 });
  await sleep(1000);
  const signalledAt = performance.now();
  service.signal('SIGTERM');
  const code = await service.waitExit(EXIT_BOUND_MS + 5000);
  const exitMs = performance.now() - signalledAt;
  const samples = await hammer.stop();
  const before = samples.filter((s) => s.sent < signalledAt);
  // A readiness request sent just before the signal may be handled just after it: its 503 is the drain
  // already showing (as in the fault timeline's judge), not a lost request.
  const drainShowing = (s: Sample) => s.path === '/api/ready' && s.status === 503 && s.received >= signalledAt;
  const lost = before.filter((s) => s.status !== 200 && !drainShowing(s));
  return { service, code, exitMs, samples, signalledAt, before, lost };
}

const describe = (samples: Sample[]) =>
  samples
    .slice(0, 3)
    .map((s) => `${s.path}: ${s.error ?? s.status}`)
    .join(', ');

for (const name of Object.keys(starters)) {
  test(
    `${name}: SIGTERM under load — no request sent before it dropped or reset, ` +
      `/api/health 200 through the ${DRAIN_MS} ms drain, exit 0 within ${EXIT_BOUND_MS / 1000} s`,
    async () => {
      const { service, code, exitMs, samples, signalledAt, before, lost } = await terminateUnderLoad(name, DRAIN_MS);
      const drain = samples.filter(
        (s) => s.sent >= signalledAt + SIGNAL_GRACE_MS && s.sent < signalledAt + DRAIN_MS - SIGNAL_GRACE_MS,
      );
      const health = drain.filter((s) => s.path === '/api/health');
      const ready = drain.filter((s) => s.path === '/api/ready');
      const afterwards = samples.filter((s) => s.sent >= signalledAt + DRAIN_MS);
      console.log(
        `    measured: ${before.length} requests before the signal, ` +
          `${health.length} health + ${ready.length} ready during the drain, ` +
          `${afterwards.filter((s) => s.status === 0).length} refused/reset after it; ` +
          `exit ${code} after ${Math.round(exitMs)} ms`,
      );
      assert.ok(before.length > 100, `only ${before.length} requests before the signal: the client did not hammer`);
      assert.equal(lost.length, 0, `${lost.length} requests sent before SIGTERM failed: ${describe(lost)}`);
      assert.ok(health.length > 10, `only ${health.length} health answers during the drain`);
      const badHealth = health.filter((s) => s.status !== 200);
      assert.equal(badHealth.length, 0, `/api/health during the drain: ${describe(badHealth)}`);
      const badReady = ready.filter((s) => s.status !== 503);
      assert.equal(badReady.length, 0, `/api/ready during the drain must be 503: ${describe(badReady)}`);
      assert.is(code, 0, `exit code ${code}`);
      assert.ok(exitMs <= EXIT_BOUND_MS, `exited ${Math.round(exitMs)} ms after SIGTERM`);
      assert.equal(errorOutput(service), []);
    },
  );

  // The default (SHUTDOWN_DELAY_MS=0): the server stops accepting at once, yet what it already had is answered.
  test(
    `${name}: SIGTERM under load with no drain delay — ` +
      `no request sent before it dropped or reset, exit 0 within ${EXIT_BOUND_MS / 1000} s`,
    async () => {
      const { service, code, exitMs, before, lost } = await terminateUnderLoad(name, 0);
      console.log(
        `    measured: ${before.length} requests before the signal, ${lost.length} of them failed; ` +
          `exit ${code} after ${Math.round(exitMs)} ms`,
      );
      assert.ok(before.length > 100, `only ${before.length} requests before the signal: the client did not hammer`);
      assert.equal(lost.length, 0, `${lost.length} requests sent before SIGTERM failed: ${describe(lost)}`);
      assert.is(code, 0, `exit code ${code}`);
      assert.ok(exitMs <= EXIT_BOUND_MS, `exited ${Math.round(exitMs)} ms after SIGTERM`);
      assert.equal(errorOutput(service), []);
    },
  );
}

test.run();
