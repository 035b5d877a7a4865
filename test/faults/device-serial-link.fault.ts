// Fault: the serial pty under a running device service is removed and recreated 20 times (the last after 3 s
// away) under load: the device's readiness follows within the bounds, and every line that reached the port is
// stored in order, once.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Service } from '../support/spawn-service.ts';
import { sleep, waitFor } from '../support/deadline.ts';
import { stopAll } from '../support/spawn-process.ts';
import { startDeviceStack, type DeviceStack } from '../support/device-stack.ts';
import { jsonLines, storedInDatabase, storedReadings } from '../support/device-services.ts';
import { startHammer, type Hammer } from './support/hammer.ts';
import { createTimeline, judge } from './support/state-timeline.ts';
import { createLineWriter } from './support/line-writer.ts';
import { readingProblems } from './support/stored-readings.ts';
import { errorOutput, footprint } from './support/service-health.ts';
import { describeLags } from './support/report.ts';

const CYCLES = 20;
// The device service's bounds for its serial port (device/README.md).
const GONE_BOUND_MS = 1000;
const BACK_BOUND_MS = 3000;
const MARGIN = 1.6;
const LINES_PER_CYCLE = 25;
const FD_SLACK = 2;
// The last removal keeps the pty away this long first, so the retry backoff has reached its 2 s cap when it
// returns: the bound holds then too, not only for a quick replug.
const LONG_AWAY_MS = 3000;

const test = suite('device serial link faults');
let stack: DeviceStack;
let backend: Service;
let device: Service;
let hammer: Hammer | undefined;

test.before(async () => {
  stack = await startDeviceStack();
  ({ device } = stack);
  backend = stack.backend();
});

test.after(async () => {
  await hammer?.stop();
  await stack?.stop();
  await stopAll();
});

test(
  `serial pty removed and recreated ${CYCLES}× under load: ` +
    `device /api/ready 503 within ${GONE_BOUND_MS} ms, 200 within ${BACK_BOUND_MS} ms; ` +
    `every line stored in order, once; no leaked handles`,
  async () => {
    hammer = startHammer(device.url, ['/api/ready'], { concurrency: 2 });
    const writer = createLineWriter(() => stack.pty, 'line');
    const timeline = createTimeline(true);
    const storedAll = (what: string) =>
      waitFor(() => storedReadings(backend).length >= writer.written.length, {
        timeout: 5000,
        what: `${what}: ${writer.written.length} readings stored`,
      });
    let warmFds = 0;
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      writer.burst(LINES_PER_CYCLE);
      // Lines still in the pty when it vanishes never reached the device; remove it only once they are stored.
      await storedAll(`cycle ${cycle}`);
      // The device sees the pty go (and come back) before the awaited stop (start) returns to us: judged from
      // when the step began, not from when we saw it end.
      const removing = performance.now();
      await timeline.during(false, `pty removed ${cycle}`, GONE_BOUND_MS, () => stack.pty.stop());
      await hammer.until(503, {
        since: removing,
        timeout: 5000,
        what: `pty removed ${cycle}: device /api/ready 503 (bound ${GONE_BOUND_MS} ms)`,
      });
      if (cycle === CYCLES) await sleep(LONG_AWAY_MS);
      const recreating = performance.now();
      await timeline.during(true, `pty recreated ${cycle}`, BACK_BOUND_MS, () => stack.recreatePty());
      await hammer.until(200, {
        since: recreating,
        timeout: 10_000,
        what: `pty recreated ${cycle}: device /api/ready 200 (bound ${BACK_BOUND_MS} ms)`,
      });
      if (cycle === 2) warmFds = footprint(device.pid).fds;
    }
    writer.burst(LINES_PER_CYCLE);
    await storedAll('at the end');
    await sleep(300); // a duplicate would show up just after
    const fds = footprint(device.pid).fds;
    const verdict = judge(await hammer.stop(), timeline.changes, MARGIN);
    console.log(
      `    measured: ${writer.written.length} lines written and stored; ` +
        `${verdict.answers} readiness answers; ${describeLags(verdict.lags)}; ` +
        `open handles ${warmFds} → ${fds}`,
    );
    assert.equal(readingProblems(await storedInDatabase(stack.mongo.url), writer.written), [], 'readings');
    assert.equal(
      verdict.violations.slice(0, 5),
      [],
      `${verdict.violations.length} readiness answers missed their bound`,
    );
    // Its own log says when and why readiness was lost: once per removal, and never for anything else.
    const losses = jsonLines(device)
      .filter((line) => line.level === 40 && String(line.msg).startsWith('readiness: '))
      .map((line) => line.check);
    assert.equal(losses, Array(CYCLES).fill('serial'), 'readiness lost once per pty removal, and for nothing else');
    assert.ok(fds <= warmFds + FD_SLACK, `${fds} open handles after ${CYCLES} cycles, ${warmFds} after 2`);
  },
);

test('the device service is still running with no error-level log line', () => {
  assert.is(device.child.exitCode, null, 'device exited');
  assert.equal(errorOutput(device), []);
});

test.run();
