// The commit trailer for real: with an Engine up, `npx tsx smoke/trailer.ts` brings compose.yaml up on free
// ports of its own, smokes it and prints PASS, even while 127.0.0.1:3000 and :3001 are taken by someone else.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:net';
import { COMPOSE_PROJECT } from '../../smoke/trailer/compose.ts';
import { spawnProcess, stopAll } from '../support/spawn-process.ts';
import { root } from '../support/spawn-service.ts';
import { runCommand } from '../../tools/child-process.ts';
import { repoOfWorkTree } from '../support/git-repo.ts';
import { parseEvidence, NOTES_REF } from '../../smoke/trailer/evidence-note.ts';

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
    // The working tree's files as a tree of a repository of the test's own: the evidence is noted there.
    const repo = await repoOfWorkTree(root, 'trailer-container-');
    const env = { ...process.env, ...repo.env };
    for (const key of ['FRONTEND_PORT', 'BACKEND_PORT', 'DEVICE_PORT']) delete env[key];
    const tree = await repo.git(['write-tree']);
    const run = spawnProcess(
      process.execPath,
      ['--import', 'tsx', 'smoke/trailer.ts', '--artifacts', '.tmp/container-tests/trailer'],
      { cwd: root, env },
    );
    const code = await run.waitExit(TRAILER_LIMIT_MS);
    assert.is(code, 0, run.lines.join('\n'));
    const line = `smoke: PASS — tree ${tree.slice(0, 12)}: 3/3 probes against docker compose`;
    assert.equal(run.stdout.filter(Boolean), [line], run.lines.join('\n'));
    // The evidence: the smoke's result, the compose configuration's digest and the images the stack ran.
    const note = await repo.git(['notes', `--ref=${NOTES_REF}`, 'list', tree]);
    const read = parseEvidence(await repo.git(['cat-file', 'blob', note]));
    assert.ok(read.found, JSON.stringify(read));
    const { evidence } = read as Extract<typeof read, { found: true }>;
    assert.equal(
      [evidence.tree, evidence.verdict, evidence.trailer, evidence.smoke?.result],
      [tree, 'PASS', line, 'PASS'],
    );
    assert.match(evidence.composeConfig ?? '', /^sha256:[0-9a-f]{64}$/);
    assert.equal(Object.keys(evidence.images).sort(), ['backend', 'database', 'frontend']);
    for (const id of Object.values(evidence.images)) assert.match(id, /^sha256:[0-9a-f]{64}$/);
    // The release that answered is the smoked tree (the images were built with RELEASE_ID set to it).
    const release = await runCommand(
      'docker',
      ['image', 'inspect', '--format', '{{json .Config.Env}}', evidence.images.backend!],
      { timeoutMs: 30_000 },
    );
    if (release.stdout.includes('RELEASE_ID=')) assert.match(release.stdout, `RELEASE_ID=${tree.slice(0, 12)}`);
    repo.remove();
    const left = await runCommand(
      'docker',
      ['ps', '-a', '-q', '--filter', `label=com.docker.compose.project=${COMPOSE_PROJECT}`],
      { timeoutMs: 30_000 },
    );
    assert.is(left.stdout.trim(), '', 'the trailer brought its stack down');
  },
);

test.run();
