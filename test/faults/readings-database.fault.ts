// Fault: a device keeps sending readings while the database (the stand-in as a process) is hung with SIGSTOP and
// resumed 5 times, and /api/readings and /api/devices are hammered throughout. Every query answers 200 or 503 within
// its 2 s bound (plus a margin), never hanging; nothing is acknowledged while the database is hung; afterwards
// every reading made is stored exactly once; the backend's warnings are summed, not one per reading.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MongoClient } from 'mongodb';
import { READ_AUTH, spawnService, type Service } from '../support/spawn-service.ts';
import { startMongoProcess, type MongoProcess } from '../support/mongo-process.ts';
import { freePort } from '../../tools/free-port.ts';
import { sleep, waitFor } from '../support/deadline.ts';
import { stopAll } from '../support/spawn-process.ts';
import { jsonLines } from '../support/device-services.ts';
import { startReadingSender, type ReadingSender } from '../support/reading-sender.ts';
import { startHammer, type Hammer, type Sample } from './support/hammer.ts';
import { errorOutput } from './support/service-health.ts';
import { SUMMED_WARNING_INTERVAL_MS } from '../../lib/summed-warning.ts';

const CYCLES = 5;
const HUNG_MS = 3000;
/** The store's query bound, and the margin a shared, noisy 2-core machine needs on top. */
const QUERY_BOUND_MS = 2000;
const MARGIN_MS = 1500;
/** Acks already on their way when the database stopped may still arrive within this. */
const IN_TRANSIT_MS = 500;
const READINGS_PER_TICK = 20; // every 100 ms: 200 readings a second
/** Log times are whole milliseconds, and a timer may fire within one of its due time. */
const CLOCK_SLACK_MS = 2;
const PATHS = ['/api/readings?deviceId=sender&limit=100', '/api/devices'];

const test = suite('readings while the database hangs');
let db: MongoProcess;
let backend: Service;
let sender: ReadingSender;
let hammer: Hammer;
let maker: NodeJS.Timeout;
let samples: Sample[] = [];
const ackedWhileHung: Array<{ cycle: number; from: number; to: number }> = [];

test.after(async () => {
  clearInterval(maker);
  sender?.stop();
  await hammer?.stop();
  db?.signal('SIGCONT');
  await stopAll();
});

test(`${CYCLES} SIGSTOP/SIGCONT cycles of ${HUNG_MS} ms with a device sending and the read API hammered`, async () => {
  const port = await freePort();
  db = await startMongoProcess(port);
  backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: db.uri } });
  await waitFor(async () => (await fetch(`${backend.url}/api/ready`)).status === 200, {
    timeout: 10_000,
    what: 'backend ready',
  });
  sender = startReadingSender(backend.url, { deviceId: 'sender' });
  maker = setInterval(() => sender.make(READINGS_PER_TICK), 100);
  hammer = startHammer(backend.url, PATHS, { concurrency: 2, timeoutMs: 10_000, headers: READ_AUTH });
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    await db.streaming({ timeout: 5000 });
    const before = sender.acked;
    await waitFor(() => sender.acked >= before + 200, { timeout: 10_000, what: `readings acked before hang ${cycle}` });
    db.signal('SIGSTOP');
    await sleep(IN_TRANSIT_MS);
    const from = sender.acked;
    await sleep(HUNG_MS - IN_TRANSIT_MS);
    ackedWhileHung.push({ cycle, from, to: sender.acked });
    db.signal('SIGCONT');
  }
  clearInterval(maker);
  await waitFor(() => sender.acked === sender.made, {
    timeout: 30_000,
    what: `all ${sender.made} readings acknowledged`,
  });
  samples = await hammer.stop();
  sender.stop();
  console.log(
    `    measured: ${sender.made} readings made and acknowledged; socket closes: ${sender.closes.join(', ') || 'none'}`,
  );
});

test('nothing was acknowledged while the database was hung', () => {
  assert.equal(
    ackedWhileHung.filter(({ from, to }) => to !== from),
    [],
  );
});

test('every reading made is in the database exactly once', async () => {
  const client = new MongoClient(`mongodb://127.0.0.1:${db.port}`);
  try {
    const docs = await client
      .db('app')
      .collection('readings')
      .find({ deviceId: 'sender' }, { sort: { seq: 1 } })
      .toArray();
    const seqs = docs.map((d) => d.seq as number);
    assert.is(seqs.length, sender.made, `${seqs.length} documents for ${sender.made} readings`);
    assert.ok(
      seqs.every((seq, i) => seq === i + 1),
      'each seq once, none missing',
    );
  } finally {
    await client.close();
  }
});

test(`every read answered 200 or 503 within ${QUERY_BOUND_MS} + ${MARGIN_MS} ms, none hung`, () => {
  for (const path of PATHS) {
    const answers = samples.filter((s) => s.path === path);
    const statuses = [...new Set(answers.map((s) => s.status))].sort();
    const slowest = Math.max(...answers.map((s) => s.received - s.sent));
    console.log(
      `    measured: ${path}: ${answers.length} answers (${answers.filter((s) => s.status === 503).length} × 503), ` +
        `slowest ${slowest.toFixed(0)} ms`,
    );
    assert.ok(answers.length > 20, `only ${answers.length} answers to ${path}`);
    assert.equal(
      statuses.filter((s) => s !== 200 && s !== 503),
      [],
      `${path}: statuses ${statuses.join(', ')}`,
    );
    assert.ok(statuses.includes(503), `${path} never answered 503`);
    assert.ok(slowest < QUERY_BOUND_MS + MARGIN_MS, `${path}: one answer took ${slowest.toFixed(0)} ms`);
  }
});

test(`the backend's warnings are summed (a line per ${SUMMED_WARNING_INTERVAL_MS} ms at most), none an error`, () => {
  // How many lines a run prints depends on how long its hangs and recoveries take (a busy machine's are longer), so
  // what is bounded is the rate: each summed warning a line per interval at most, each readiness change once a hang.
  const warnings = jsonLines(backend).filter((l) => l.level === 40);
  const kinds = new Map<string, number[]>();
  for (const line of warnings) {
    const kind = String(line.msg)
      .replace(/\d+/g, 'N')
      .replace(/(read|write)s\b/g, '$1');
    kinds.set(kind, [...(kinds.get(kind) ?? []), Number(line.time)]);
  }
  const counted = [...kinds].map(([kind, times]) => `${times.length} × ${kind}`);
  console.log(`    measured: ${warnings.length} warning lines: ${counted.join(' | ')}`);
  for (const [kind, times] of kinds) {
    if (kind.startsWith('readiness:')) assert.ok(times.length <= CYCLES, `${times.length} × ${kind}`);
    else
      times.slice(1).forEach((time, i) => {
        const apart = time - times[i]!;
        assert.ok(apart >= SUMMED_WARNING_INTERVAL_MS - CLOCK_SLACK_MS, `${kind}: two lines ${apart} ms apart`);
      });
  }
  assert.equal(errorOutput(backend), []);
});

test.run();
