// Fault: a fleet of devices each sends a burst of frames near the size limit at once, so the backend pauses their
// sockets while the frames wait: every device still hears from the backend within the silence after which the device
// service drops its link (device/link/backend-link.ts), so a busy but healthy backend is never taken for a dead one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { root, spawnService } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { spawnProcess, stopAll } from '../support/spawn-process.ts';
import { waitFor } from '../support/deadline.ts';

const FLEET = Number(process.env.PAUSED_FLEET ?? 200);
// 200 × 12 frames of ~56 KiB held at once stay under the backend's 256 MiB bound on what its writers hold.
const FRAMES = Number(process.env.PAUSED_FRAMES ?? 12);
// The device service's defaults (device/README.md): a ping a second, the link dropped after 2.5 s of silence.
const PING_MS = 1000;
const SILENCE_LIMIT_MS = 2500;
const DEADLINE_MS = 240_000;

interface FleetReport {
  acked: number;
  expected: number;
  maxSilentMs: number;
  overLimit: number;
  closes: Record<string, number>;
}

const test = suite('paused device sockets');

test.after(async () => {
  await stopAll();
});

test(`${FLEET} devices × ${FRAMES} big frames: none silent past ${SILENCE_LIMIT_MS} ms, none closed`, async () => {
  const mongo = await startMongoProcess();
  const backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri } });
  await waitFor(async () => (await fetch(`${backend.url}/api/ready`)).status === 200, { what: 'backend ready' });
  const fleet = spawnProcess(process.execPath, ['--import', 'tsx', 'test/faults/support/ping-fleet.ts'], {
    cwd: root,
    env: {
      ...process.env,
      BACKEND_URL: backend.url,
      FLEET: String(FLEET),
      FRAMES: String(FRAMES),
      PING_MS: String(PING_MS),
      SILENCE_LIMIT_MS: String(SILENCE_LIMIT_MS),
      DEADLINE_MS: String(DEADLINE_MS),
    },
  });
  await fleet.waitExit(DEADLINE_MS + 30_000);
  const line = fleet.stdout.find((l) => l.startsWith('{'));
  assert.ok(line, `the fleet printed no report: ${fleet.lines.slice(-5).join(' | ')}`);
  const report = JSON.parse(line) as FleetReport;
  console.log(`  fleet: ${JSON.stringify(report)}`);
  assert.equal(report.closes, {}, 'sockets closed (code → sockets)');
  assert.is(report.overLimit, 0, `devices silent past ${SILENCE_LIMIT_MS} ms (longest ${report.maxSilentMs} ms)`);
  assert.is(report.acked, report.expected, 'readings acknowledged');
});

test.run();
