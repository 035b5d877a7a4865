// Fault: the database is silently hung (SIGSTOP) and resumed 10 times while a client hammers /api/ready.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnService, type Service } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { freePort } from '../support/free-port.ts';
import { sleep, waitFor } from '../support/deadline.ts';
import { stopAll } from '../support/spawn-process.ts';
import { startHammer, type Hammer } from './support/hammer.ts';
import { createTimeline, judge, type Verdict } from './support/state-timeline.ts';
import { footprint, testAftermath, warmFootprint, type Footprint } from './support/service-health.ts';
import { describeLags } from './support/report.ts';

const CYCLES = 10;
const WARM_CYCLES = 2;
const HANG_BOUND_MS = 3000;
const BACK_BOUND_MS = 2000;
const MARGIN = 1.6; // for a shared, noisy machine; a monitor that misses the hang (~40 s) still fails
const SETTLE_MS = 700;
const RSS_SLACK_MIB = 12;
const FD_SLACK = 2;

const test = suite('database hung and resumed under load');
let backend: Service;
let hammer: Hammer;
let verdict: Verdict;
let warm: Footprint;
let after: Footprint;

test.after(async () => {
  await hammer?.stop();
  await stopAll();
});

test(`${CYCLES} SIGSTOP/SIGCONT cycles under load: every /api/ready answer 200 or 503, matching the database within ${HANG_BOUND_MS} ms (hung) / ${BACK_BOUND_MS} ms (back), no socket error`, async () => {
  const mongo = await startMongoProcess(await freePort());
  backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri } });
  await waitFor(async () => (await fetch(`${backend.url}/api/ready`)).status === 200, { timeout: 10_000, what: 'backend ready' });
  hammer = startHammer(backend.url, ['/api/ready'], { concurrency: 6 });
  const timeline = createTimeline(true);
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    await sleep(SETTLE_MS);
    mongo.signal('SIGSTOP');
    timeline.mark(false, `SIGSTOP ${cycle}`, HANG_BOUND_MS);
    await hammer.until(503, { since: performance.now(), timeout: 10_000, what: `SIGSTOP ${cycle}: /api/ready 503 (bound ${HANG_BOUND_MS} ms)` });
    mongo.signal('SIGCONT');
    timeline.mark(true, `SIGCONT ${cycle}`, BACK_BOUND_MS);
    await hammer.until(200, { since: performance.now(), timeout: 8000, what: `SIGCONT ${cycle}: /api/ready 200 (bound ${BACK_BOUND_MS} ms)` });
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
