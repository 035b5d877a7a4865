// Fault: the database is killed and restarted 50 times while a client hammers the backend's /api/ready.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnService, type Service } from '../support/spawn-service.ts';
import { startMongoProcess, type MongoProcess } from '../support/mongo-process.ts';
import { freePort } from '../support/free-port.ts';
import { sleep, waitFor } from '../support/deadline.ts';
import { stopAll } from '../support/spawn-process.ts';
import { startHammer, type Hammer } from './support/hammer.ts';
import { createTimeline, judge, type Verdict } from './support/state-timeline.ts';
import { footprint, testAftermath, warmFootprint, type Footprint } from './support/service-health.ts';
import { describeLags } from './support/report.ts';

const CYCLES = 50;
const WARM_CYCLES = 5;
const KILL_BOUND_MS = 250;
const BACK_BOUND_MS = 2000;
// Margin for a shared, noisy 2-core machine; a broken monitor (no flip, or seconds late) still fails.
const MARGIN = 1.6;
// The driver starts streaming heartbeats one interval (500 ms) after it connects; kills are made after that.
const SETTLE_MS = 700;
const RSS_SLACK_MIB = 12;
const FD_SLACK = 2;

const test = suite('database killed and restarted under load');
let backend: Service;
let hammer: Hammer;
let verdict: Verdict;
let warm: Footprint;
let after: Footprint;

test.after(async () => {
  await hammer?.stop();
  await stopAll();
});

test(`${CYCLES} kill/restart cycles under load: every /api/ready answer 200 or 503, matching the database within ${KILL_BOUND_MS} ms (killed) / ${BACK_BOUND_MS} ms (back), no socket error`, async () => {
  const port = await freePort();
  let mongo: MongoProcess = await startMongoProcess(port);
  backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri } });
  await waitFor(async () => (await fetch(`${backend.url}/api/ready`)).status === 200, { timeout: 10_000, what: 'backend ready' });
  hammer = startHammer(backend.url, ['/api/ready'], { concurrency: 6 });
  const timeline = createTimeline(true);
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    await sleep(SETTLE_MS);
    mongo.child.kill('SIGKILL');
    timeline.mark(false, `kill ${cycle}`, KILL_BOUND_MS);
    const killedAt = performance.now();
    await mongo.exited;
    await hammer.until(503, { since: killedAt, timeout: 5000, what: `kill ${cycle}: /api/ready 503 (bound ${KILL_BOUND_MS} ms)` });
    // The backend may reconnect before the stand-in's "listening" line reaches us: judged from the restart's start.
    const restarting = performance.now();
    mongo = await timeline.during(true, `restart ${cycle}`, BACK_BOUND_MS, () => startMongoProcess(port));
    await hammer.until(200, { since: restarting, timeout: 8000, what: `restart ${cycle}: /api/ready 200 (bound ${BACK_BOUND_MS} ms)` });
    if (cycle === WARM_CYCLES) warm = await warmFootprint(backend.pid, () => hammer.samples.length);
  }
  await sleep(SETTLE_MS + 1000);
  after = footprint(backend.pid);
  verdict = judge(await hammer.stop(), timeline.changes, MARGIN);
  console.log(`    measured: ${verdict.answers} answers; ${describeLags(verdict.lags)}`);
  assert.ok(verdict.answers > CYCLES * 20, `only ${verdict.answers} answers: the client did not hammer`);
  assert.equal(verdict.violations.slice(0, 5), [], `${verdict.violations.length} answers missed their bound`);
});

testAftermath(test, () => ({ backend, warm, after }), { rssSlackMiB: RSS_SLACK_MIB, fdSlack: FD_SLACK });

test.run();
