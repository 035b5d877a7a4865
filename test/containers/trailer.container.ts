// The commit trailer for real: with an Engine up, `npx tsx smoke/trailer.ts` brings compose.yaml up on free
// ports of its own, smokes it and prints PASS, even while 127.0.0.1:3000 and :3001 are taken by someone else.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:net';
import { COMPOSE_PROJECT } from '../../smoke/trailer/compose.ts';
import { spawnProcess, stopAll } from '../support/spawn-process.ts';
import { root } from '../support/spawn-service.ts';
import { runCommand } from '../../tools/child-process.ts';

const test = suite('trailer against compose');
const TRAILER_LIMIT_MS = 200_000; // build (cached after the other files), up, smoke, down
const holders: Server[] = [];

/** Takes a developer's ports if they are free; if they are not, someone already holds them, which is the point. */
function hold(port: number): Promise<void> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve());
    server.listen(port, '127.0.0.1', () => {
      holders.push(server);
      resolve();
    });
  });
}

test.after(async () => {
  await stopAll();
  for (const server of holders) server.close();
});

test(
  'smoke/trailer.ts prints PASS 3/3 against docker compose with 3000 and 3001 busy, ' + 'and leaves no project behind',
  async () => {
    await hold(3000);
    await hold(3001);
    const env = { ...process.env };
    for (const key of ['FRONTEND_PORT', 'BACKEND_PORT', 'DEVICE_PORT']) delete env[key];
    const run = spawnProcess(
      process.execPath,
      ['--import', 'tsx', 'smoke/trailer.ts', '--artifacts', '.tmp/container-tests/trailer'],
      { cwd: root, env },
    );
    const code = await run.waitExit(TRAILER_LIMIT_MS);
    assert.is(code, 0, run.lines.join('\n'));
    assert.equal(run.stdout.filter(Boolean), ['smoke: PASS — 3/3 probes against docker compose'], run.lines.join('\n'));
    const left = await runCommand(
      'docker',
      ['ps', '-a', '-q', '--filter', `label=com.docker.compose.project=${COMPOSE_PROJECT}`],
      { timeoutMs: 30_000 },
    );
    assert.is(left.stdout.trim(), '', 'the trailer brought its stack down');
  },
);

test.run();
