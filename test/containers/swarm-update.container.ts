// A rolling update of the backend to a new release (start-first, one task at a time) while a client sends requests
// through the load balancer without pause and the device keeps reading: no request fails, every reading the device
// read is stored exactly once (each session numbered 1, 2, 3 … with no gap and no duplicate), and, seen from outside
// through /api/health's `version`, the moment every answer comes from the new release. Prints what it saw.
// The Engine's own swarm (made one if it is none, never left: support/swarm.ts), one file at a time:
// test-exclusive: engine-swarm
import * as assert from 'uvu/assert';
import { CONVERGE_MS, swarmSuite } from './support/swarm-suite.ts';
import { waitFor } from '../support/deadline.ts';
import { dockerOk } from './support/swarm.ts';
import type { Answer } from './support/request-loop.ts';
import type { UpdateStatus } from './support/swarm-stack.ts';
import { createRequestLoop, describeFailures, failures } from './support/request-loop.ts';
import { createDeviceWatch } from './support/device-watch.ts';
import { deviceSettled } from './support/device-settled.ts';
import { READ_AUTH, sequenceProblems, storedReadings } from './support/stored-readings.ts';

const { test, swarmTest, stack } = await swarmSuite('swarm rolling update', import.meta.filename);
const UPDATE_MS = 120_000;

/**
 * From outside: when the old release last answered /api/health and the new one first did, and that from then on
 * every answer came from the new one. Only those two releases may answer at all.
 */
function releaseSwitch(answers: Answer[], old: string, next: string, startedAt: number) {
  const health = answers.filter((answer) => answer.path === '/api/health' && answer.status === 200);
  assert.equal(
    health.filter((answer) => answer.version !== old && answer.version !== next).map((answer) => answer.version),
    [],
    `only ${old} and ${next} answer`,
  );
  const lastOld = health.findLast((answer) => answer.version === old);
  const firstNew = health.find((answer) => answer.version === next);
  assert.ok(firstNew, `the new release ${next} answered during the update`);
  assert.is(health.at(-1)?.version, next, 'the last answer came from the new release');
  const after = lastOld ? health.filter((answer) => answer.sentAt > lastOld.sentAt) : health;
  assert.ok(
    after.every((answer) => answer.version === next),
    'after the old release last answered, only the new one',
  );
  const at = (answer: Answer | undefined) => (answer ? `+${answer.sentAt - startedAt} ms` : 'never');
  return (
    `release ${old} answered last at ${at(lastOld)}, ${next} first at ${at(firstNew)}; ` +
    `from then on all ${after.length} /api/health answers came from ${next}`
  );
}

swarmTest(
  'a rolling update of the backend to a new release: 0 failed requests, every reading stored once',
  async () => {
    const lb = await stack.url('lb', 3001);
    const device = await stack.url('device', 3003);
    await waitFor(async () => (await storedReadings(lb)).length >= 3, {
      timeout: 30_000,
      interval: 500,
      what: 'the device streaming readings',
    });
    const before = (await stack.running('backend')).map((task) => task.id);
    const oldRelease = ((await (await fetch(`${lb}/api/health`)).json()) as { version: string }).version;
    const newRelease = `update-${process.pid}`;
    const paths = ['/api/ready', '/api/health', '/api/readings?deviceId=device&limit=1'];
    const loop = createRequestLoop(lb, paths, 2, READ_AUTH);
    const watch = createDeviceWatch(device);
    const startedAt = Date.now();
    try {
      // A new release without a new image: RELEASE_ID is what the image reports as `version`.
      const release = ['--env-add', `RELEASE_ID=${newRelease}`];
      await dockerOk([
        'service',
        'update',
        '--detach',
        '--force',
        ...release,
        '--no-resolve-image',
        stack.service('backend'),
      ]);
      await waitFor(
        async () => (await stack.inspect<UpdateStatus | null>('backend', '.UpdateStatus'))?.State === 'completed',
        { timeout: UPDATE_MS, interval: 250, what: 'the rolling update completed' },
      );
    } finally {
      await loop.stop();
    }
    const updateMs = Date.now() - startedAt;
    // The device is connected again, and has nothing left waiting for an ack.
    await deviceSettled(device, 20_000);
    const seen = await watch.stop();
    const answers = loop.answers;
    assert.is(failures(answers).length, 0, describeFailures(answers));
    const after = (await stack.running('backend')).map((task) => task.id);
    assert.is(after.length, 2);
    assert.ok(!after.some((id) => before.includes(id)), 'every replica was replaced');
    const switched = releaseSwitch(answers, oldRelease, newRelease, startedAt);
    const readings = await storedReadings(lb);
    assert.equal(sequenceProblems(readings), []);
    const delays = readings.map((r) => Date.parse(r.receivedAt) - Date.parse(r.timestamp));
    console.log(
      `  measured: update ${updateMs} ms; ${answers.length} requests through the LB, 0 failed; ` +
        `${readings.length} readings stored once each; the device lost its backend socket ${seen.backendLost}×, ` +
        `the longest wait for an ack ${seen.longestWaitMs} ms (at most ${seen.mostUnacknowledged} unacknowledged), ` +
        `the longest from a reading to its arrival at the backend that stored it ${Math.max(...delays)} ms; ` +
        switched,
    );
  },
);

test.run();
