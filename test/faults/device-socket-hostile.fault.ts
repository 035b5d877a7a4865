// Fault: hostile clients against the backend's device socket, on the MongoDB stand-in, with its probes hammered
// and a real device service streaming readings throughout: 2,000 upgrades without the token, 500 sockets that
// never say hello, 100,000 garbage frames, a 1 MiB frame, a socket claiming a second device, and a client that
// never reads its acks. The probes stay fast, the device's readings arrive in order and once, memory returns,
// and the token appears nowhere.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { READ_AUTH, root, TEST_DEVICE_TOKEN, type Service } from '../support/spawn-service.ts';
import { sleep, waitFor } from '../support/deadline.ts';
import { spawnProcess, stopAll, type Spawned } from '../support/spawn-process.ts';
import { startDeviceStack, type DeviceStack } from '../support/device-stack.ts';
import { jsonLines, storedInDatabase, storedReadings } from '../support/device-services.ts';
import { startHammer, type Hammer, type Sample } from './support/hammer.ts';
import { createLineWriter, type LineWriter } from './support/line-writer.ts';
import { readingProblems } from './support/stored-readings.ts';
import { errorOutput, footprint, type Footprint } from './support/service-health.ts';
import { mib, rssMiB } from './support/process-stats.ts';
import { collectGarbage, inspectorOptions, withoutInspectorLines } from './support/full-gc.ts';
import { freePort } from '../../tools/free-port.ts';
import { DEVICE_MESSAGE_RATE } from '../../lib/device-protocol.ts';

const UNAUTHENTICATED = 2000;
const SILENT = 500;
const GARBAGE_FRAMES = 100_000;
const SLOW_READINGS = 600; // at 40 a second: the slow client lasts the whole attack
const HELLO_MS = 5000;
const P99_BOUND_MS = 50;
const RSS_SLACK_MIB = 16;
/** How long the resident level may take to fall after the full GC (the pages it frees are unmapped at once). */
const RSS_BACK_WITHIN_MS = 10_000;
/** Warning lines the whole attack may cost: each kind is logged once or summed, never once per message. */
const WARNINGS_MAX = 25;
const INFO_LINES_MAX = 50;
const DEVICE_ID = 'real-device';
/**
 * Each attack once, all at once, before the pre-attack memory level is taken: at full scale, because what an attack
 * leaves in RSS is mostly the allocator's high-water mark (buffers for hundreds of sockets at once), which the next
 * attack reuses; what the real attack then adds is what it keeps. The slow reader alone is short: it holds little.
 */
const REHEARSAL: Record<string, number> = {
  unauthenticated: UNAUTHENTICATED,
  silent: SILENT,
  garbage: GARBAGE_FRAMES,
  oversize: 1,
  'second-device': 1,
  slow: 20,
};

const test = suite('device socket under hostile clients');
let stack: DeviceStack;
let backend: Service;
let device: Service;
let hammer: Hammer | undefined;
let writer: LineWriter | undefined;
const attackers: Spawned[] = [];
const results: Record<string, any> = {};
let samples: Sample[] = [];
let attackWindow = { from: 0, to: 0 };
/** Date.now() when the attack proper began: log lines carry epoch-ms `time`. */
let attackStartedAt = 0;
let warm: Footprint;
/** The backend's inspector, through which the memory levels are taken after a full GC. */
let inspectorPort: number;

test.before(async () => {
  inspectorPort = await freePort();
  stack = await startDeviceStack({
    deviceEnv: { DEVICE_ID },
    backendEnv: { NODE_OPTIONS: inspectorOptions(inspectorPort) },
  });
  ({ device } = stack);
  backend = stack.backend();
});

test.after(async () => {
  writer?.stop();
  await hammer?.stop();
  await stack?.stop();
  await stopAll();
});

function attacker(scenario: string, count: number): Spawned {
  const proc = spawnProcess(
    process.execPath,
    ['--import', 'tsx', 'test/faults/support/socket-attacker.ts', scenario, backend.url, String(count)],
    {
      cwd: root,
      env: { ...process.env, ATTACK_TOKEN: TEST_DEVICE_TOKEN },
    },
  );
  attackers.push(proc);
  return proc;
}

async function finished(proc: Spawned, what: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  const code = await proc.waitExit(timeoutMs);
  if (code !== 0) throw new Error(`${what}: attacker exited ${code}\n${proc.lines.slice(-10).join('\n')}`);
  return JSON.parse(proc.stdout.filter(Boolean).at(-1)!);
}

const p99 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(values.length * 0.99) - 1)] ?? NaN;

test('the attack runs to the end against a running backend and device', async () => {
  hammer = startHammer(backend.url, ['/api/health', '/api/ready'], { concurrency: 2 });
  writer = createLineWriter(() => stack.pty, 'line');
  writer.start(25);
  // The pre-attack level is taken warm: every code path the attack takes has run once at a small scale (JIT
  // code, ws and parser buffers are one-time costs, not what an attack leaves behind), and memory has settled.
  const cold = rssMiB(backend.pid);
  await Promise.all(
    Object.entries(REHEARSAL).map(([scenario, count]) => finished(attacker(scenario, count), `rehearsal ${scenario}`)),
  );
  await collectGarbage(inspectorPort);
  warm = footprint(backend.pid);
  for (let settled = 0, deadline = Date.now() + 15_000; settled < 4 && Date.now() < deadline;) {
    await sleep(500);
    const now = footprint(backend.pid);
    settled = Math.abs(now.rss - warm.rss) < 0.5 ? settled + 1 : 0;
    warm = now;
  }
  console.log(`    measured: backend RSS ${mib(cold)} at start → ${mib(warm.rss)} warm, after the rehearsal`);

  attackWindow.from = performance.now();
  attackStartedAt = Date.now();
  const slow = attacker('slow', SLOW_READINGS);
  results.unauthenticated = await finished(attacker('unauthenticated', UNAUTHENTICATED), 'unauthenticated');
  results.silent = await finished(attacker('silent', SILENT), 'silent');
  results.garbage = await finished(attacker('garbage', GARBAGE_FRAMES), 'garbage');
  results.oversize = await finished(attacker('oversize', 1), 'oversize');
  results.secondDevice = await finished(attacker('second-device', 1), 'second-device');
  results.slow = await finished(slow, 'slow');
  attackWindow.to = performance.now();

  writer.stop();
  const written = writer.written;
  // Counted in the database, not the log: a write that succeeds while the database's answer is lost (a blip under
  // load) is retried, and the retry finds those readings stored already, so no 'readings stored' line names them.
  const stored = async (deviceId: string) => (await storedInDatabase(stack.mongo.url, deviceId)).length;
  await waitFor(async () => (await stored(DEVICE_ID)) >= written.length, {
    timeout: 15_000,
    what: `${written.length} readings stored`,
  });
  // Nothing left unacknowledged on the device, so nothing is resent (a duplicate would come from a resend).
  await waitFor(async () => (await (await fetch(`${device.url}/api/health`)).json()).readings.unacknowledged === 0, {
    timeout: 15_000,
    what: 'the device holding nothing unacknowledged',
  });
  // The slow client ends once its last reading is acknowledged (socket-attacker.ts), so all of it is stored by now.
  results.slowStored = await stored('slow-reader');
  const logged = storedReadings(backend).filter((r) => r.deviceId === 'slow-reader').length;
  console.log(
    `    measured: ${results.slowStored} slow-reader readings in the database, ${logged} logged as stored anew`,
  );
  samples = await hammer.stop();
  results.written = written.length;
  console.log(
    `    measured: attack took ${((attackWindow.to - attackWindow.from) / 1000).toFixed(1)} s; ` +
      `${written.length} device readings written meanwhile`,
  );
});

test(`the probes answer 200 throughout, p99 under ${P99_BOUND_MS} ms`, () => {
  for (const path of ['/api/health', '/api/ready']) {
    const during = samples.filter((s) => s.path === path && s.sent >= attackWindow.from && s.sent <= attackWindow.to);
    const failed = during.filter((s) => s.status !== 200);
    const latency = p99(during.map((s) => s.received - s.sent));
    console.log(
      `    measured: ${path} ${during.length} answers during the attack, ` +
        `p99 ${latency.toFixed(1)} ms, max ${Math.max(...during.map((s) => s.received - s.sent)).toFixed(1)} ms`,
    );
    assert.ok(during.length > 100, `only ${during.length} ${path} answers`);
    assert.equal(failed.slice(0, 3), [], `${failed.length} ${path} answers were not 200`);
    assert.ok(latency < P99_BOUND_MS, `${path} p99 ${latency.toFixed(1)} ms`);
  }
});

test(`${UNAUTHENTICATED} upgrades without the token: every one 401, one warning`, () => {
  assert.equal(results.unauthenticated.statuses, { 401: UNAUTHENTICATED });
  // The rehearsal's refusals came first from the same address, within the same minute: one warning for all.
  const warnings = jsonLines(backend).filter((l) => String(l.msg).startsWith('refused a device socket upgrade'));
  assert.is(warnings.length, 1, 'one warning per address per minute');
  assert.is(warnings[0]!.remoteAddress, '127.0.0.1');
});

test(
  `${SILENT} authenticated sockets that never say hello: ` +
    `all closed with 1008 about ${HELLO_MS / 1000} s after opening`,
  () => {
    const { opened, codes, closedAfterMs, openedInMs } = results.silent;
    console.log(
      `    measured: ${opened} opened in ${openedInMs} ms; ` +
        `each closed at least ${closedAfterMs.minSinceRequest} ms after its upgrade request, ` +
        `at most ${closedAfterMs.maxSinceOpen} ms after opening`,
    );
    assert.is(opened, SILENT);
    assert.equal(codes, { 1008: SILENT });
    // A timer may fire a millisecond before its time as a fresh clock reads it.
    assert.ok(
      closedAfterMs.minSinceRequest >= HELLO_MS - 2,
      `one closed ${closedAfterMs.minSinceRequest} ms after its request`,
    );
    assert.ok(
      closedAfterMs.maxSinceOpen < HELLO_MS + 3000,
      `one closed only ${closedAfterMs.maxSinceOpen} ms after opening`,
    );
  },
);

test(
  `${GARBAGE_FRAMES} garbage frames: closed with 1008 at the rate limit, ` + `one rate warning, malformed ones summed`,
  () => {
    assert.equal(
      { code: results.garbage.code, reason: results.garbage.reason },
      { code: 1008, reason: 'message rate exceeded' },
    );
    assert.is(results.garbage.sent, GARBAGE_FRAMES);
    const lines = jsonLines(backend);
    assert.is(
      lines.filter(
        (l) =>
          l.time >= attackStartedAt &&
          String(l.msg).includes('over its message rate') &&
          l.deviceId === 'garbage-device',
      ).length,
      1,
    );
    // Two garbage sockets in all (rehearsal and attack), each cut off once its burst is spent, plus what refilled
    // while the flood was being read: a second's worth is ample.
    const malformed = lines.filter((l) => String(l.msg).includes('malformed device message'));
    const counted = malformed.reduce((sum, l) => sum + l.count, 0);
    console.log(
      `    measured: ${counted} malformed messages counted (rehearsal and attack) in ${malformed.length} log lines`,
    );
    const { burst, perSecond } = DEVICE_MESSAGE_RATE;
    assert.ok(
      counted <= 2 * (burst + perSecond),
      `${counted} malformed messages taken: more than two bursts and a second's refill`,
    );
    assert.ok(malformed.length <= 4, `${malformed.length} malformed-message lines`);
  },
);

test('a 1 MiB frame closes its socket with 1009', () => {
  assert.is(results.oversize.code, 1009);
});

test('a socket naming a second device is closed with 1008 and nothing is stored for the other device', async () => {
  assert.equal(results.secondDevice, {
    scenario: 'second-device',
    code: 1008,
    reason: 'one device per socket',
    acks: ['own session:1'],
  });
  const listed = await fetch(`${backend.url}/api/devices`, { headers: READ_AUTH });
  const devices = (await listed.json()).devices as Array<{ deviceId: string }>;
  assert.not.ok(
    devices.some((d) => d.deviceId === 'victim'),
    'the claimed device exists',
  );
});

test(
  'a client that never reads its acks costs the backend nothing it cannot bound: ' +
    'served at its rate, never stalling the rest',
  () => {
    // 40 readings a second cost the backend ~1 KB/s of acks, which the kernel's socket buffers absorb; past them the
    // backend would drop it at 64 KiB unsent (backend/device-thread/device-thread.test.ts shows that with a flood of
    // answers).
    assert.equal(results.slow, { scenario: 'slow', sent: SLOW_READINGS, stillOpen: true });
    assert.is(results.slowStored, SLOW_READINGS + REHEARSAL.slow!);
  },
);

test(
  'the real device service kept its readings flowing: ' + 'every line stored in order, once, without a reconnect',
  async () => {
    assert.equal(readingProblems(await storedInDatabase(stack.mongo.url), writer!.written, DEVICE_ID), []);
    assert.is((await fetch(`${device.url}/api/ready`)).status, 200);
    assert.equal(
      jsonLines(device).filter((l) => String(l.msg).includes('backend socket closed')),
      [],
    );
  },
);

test(
  `afterwards the backend's resident memory is back within ` + `${RSS_SLACK_MIB} MiB of its pre-attack level`,
  async () => {
    // What the attack left is mostly garbage in V8's old space, on pages of its own (51–69 new 256 KiB pages, 13–17
    // MiB, in /proc/<pid>/smaps), which only a major GC releases. V8's memory reducer runs those GCs by itself once
    // the process looks idle: quiet, 18–28 s after the attack; beside two CPU burners it had not after 45 s (+23.3
    // MiB). So both levels are taken after a full GC asked for through the inspector: what the attack keeps.
    await collectGarbage(inspectorPort);
    let after = rssMiB(backend.pid);
    const deadline = Date.now() + RSS_BACK_WITHIN_MS;
    while (after > warm.rss + RSS_SLACK_MIB && Date.now() < deadline) {
      await sleep(500);
      after = rssMiB(backend.pid);
    }
    console.log(
      `    measured: backend RSS ${mib(warm.rss)} before the attack → ` +
        `${mib(after)} after (Δ ${(after - warm.rss).toFixed(1)} MiB)`,
    );
    assert.ok(after <= warm.rss + RSS_SLACK_MIB, `${mib(after)}, pre-attack ${mib(warm.rss)}`);
  },
);

test(
  `the token appears in no output, and the attack cost at most ` +
    `${WARNINGS_MAX} warning lines, ${INFO_LINES_MAX} info lines and none at error level`,
  async () => {
    const devices = await (await fetch(`${backend.url}/api/devices`, { headers: READ_AUTH })).text();
    const outputs: Record<string, string> = {
      backend: backend.lines.join('\n'),
      device: device.lines.join('\n'),
      '/api/devices': devices,
      ...Object.fromEntries(attackers.map((a, i) => [`attacker ${i}`, a.lines.join('\n')])),
    };
    for (const [name, output] of Object.entries(outputs)) {
      assert.not.ok(
        output.includes(TEST_DEVICE_TOKEN) || output.includes(TEST_DEVICE_TOKEN.toUpperCase()),
        `the token appears in ${name}`,
      );
    }
    const warnings = jsonLines(backend).filter((l) => l.level === 40);
    // Info lines too: a refused upgrade is worth no access-log line at info (the warning above covers it).
    const infoDuringAttack = jsonLines(backend).filter((l) => l.level === 30 && l.time >= attackStartedAt);
    console.log(`    measured: ${infoDuringAttack.length} info lines from the backend during the attack`);
    assert.ok(
      infoDuringAttack.length <= INFO_LINES_MAX,
      `${infoDuringAttack.length} info lines: ${[...new Set(infoDuringAttack.map((l) => l.msg))].join(' | ')}`,
    );
    console.log(
      `    measured: ${warnings.length} warning lines from the backend: ` +
        `${[...new Set(warnings.map((l) => String(l.msg).replace(/\d+/g, 'N')))].join(' | ')}`,
    );
    assert.ok(warnings.length <= WARNINGS_MAX, `${warnings.length} warning lines`);
    assert.equal(withoutInspectorLines(errorOutput(backend)), []);
    assert.equal(errorOutput(device), []);
  },
);

test.run();
