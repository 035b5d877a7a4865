// The database tests against the database image compose.yaml runs (MONGO_IMAGE, the official mongo:8.0 unless the
// Engine script had to build the stand-in's): the MongoDB subset the stand-in speaks (dev/mongo-standin/) and the
// backend's reading store (backend/) run again with MONGO_TEST_URI pointing at a container of it, so whatever the
// stand-in answers is held to what mongod answers, and the backend's indexes and write concern to a real server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MongoClient } from 'mongodb';
import { runCommand } from '../../tools/child-process.ts';
import { waitFor } from '../support/deadline.ts';
import { root } from '../support/spawn-service.ts';
import { onTerminate } from '../support/on-terminate.ts';

const test = suite('MongoDB subset on the database image');
const IMAGE = process.env.MONGO_IMAGE || 'mongo:8.0';
const NAME = `shk-test-mongo-${process.pid}`;
const FILES = [
  'dev/mongo-standin/crud-commands.test.ts',
  'dev/mongo-standin/update-commands.test.ts',
  'dev/mongo-standin/cursor-batches.test.ts',
  'backend/readings/reading-store.test.ts',
];
let uri = '';

const docker = (args: string[], timeoutMs = 120_000) =>
  runCommand('docker', args, { timeoutMs, env: process.env, cwd: root });

test.before(async () => {
  await docker(['rm', '-f', NAME]);
  onTerminate(() => docker(['rm', '-f', NAME])); // the `after` hook's removal, for a file stopped at its deadline
  const run = await docker(['run', '-d', '--rm', '--name', NAME, '-p', '127.0.0.1:0:27017', IMAGE], 600_000);
  assert.is(run.code, 0, `docker run ${IMAGE}: ${run.stderr}`);
  const port = await docker(['port', NAME, '27017/tcp']);
  const hostPort = /:(\d+)\s*$/m.exec(port.stdout)?.[1];
  assert.ok(hostPort, `docker port: ${port.stdout} ${port.stderr}`);
  uri = `mongodb://127.0.0.1:${hostPort}/?directConnection=true`;
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 2000 });
  try {
    await waitFor(async () => (await client.db('admin').command({ ping: 1 })).ok === 1, {
      timeout: 60_000,
      interval: 500,
      what: `${IMAGE} answering ping`,
    });
    const info = await client.db('admin').command({ buildInfo: 1 });
    console.log(`    ${IMAGE}: version ${info.version} (${info.gitVersion})`);
  } finally {
    await client.close();
  }
});
test.after(async () => {
  await docker(['rm', '-f', NAME]);
});

for (const file of FILES) {
  test(`${file} passes against ${IMAGE}`, async () => {
    const result = await runCommand(process.execPath, ['--import', 'tsx', file], {
      timeoutMs: 120_000,
      env: { ...process.env, MONGO_TEST_URI: uri, NO_COLOR: '1' },
      cwd: root,
    });
    const output = `${result.stdout}\n${result.stderr}`;
    assert.match(
      output,
      /against the MONGO_TEST_URI/,
      'the tests ran against the container, not an in-process stand-in',
    );
    assert.is(result.code, 0, output.slice(-3000));
    assert.match(output, /Passed:\s+(\d+)/);
    assert.equal(/Total:\s+(\d+)/.exec(output)?.[1], /Passed:\s+(\d+)/.exec(output)?.[1], output.slice(-3000));
  });
}

test.run();
