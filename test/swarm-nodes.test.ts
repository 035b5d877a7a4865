// scripts/swarm-nodes.sh on bad input: one line naming the problem, exit 2 for a bad argument and 1 for a refusal,
// nothing on stdout for `eval`, and nothing made. The state directory is the test's own (SWARM_NODES_DIR), so no
// namespace, link or daemon is ever reached: every case here is refused before the script makes anything, or is a
// --stop with nothing of its own to remove.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './support/spawn-service.ts';

const test = suite('swarm-nodes.sh');
const dir = mkdtempSync(join(tmpdir(), 'swarm-nodes-test-'));
const asRoot = process.getuid?.() === 0;
// The hub namespace marks a swarm as up, machine-wide: this file's own name, so that a real swarm started beside it
// (the container tests, which CI runs beside the suite) neither refuses nor is refused by it, nor loses its hub.
const HUB = `shk-test-hub-${process.pid}`;

function run(...args: string[]) {
  const result = spawnSync('bash', [join(root, 'scripts/swarm-nodes.sh'), ...args], {
    env: { ...process.env, SWARM_NODES_DIR: dir, SWARM_HUB_NAMESPACE: HUB },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test.after(() => rmSync(dir, { recursive: true, force: true }));

const badArguments: [string[], RegExp][] = [
  [[], /no command/],
  [['--nodes'], /--nodes takes a count from 1 to 9, not ""/],
  [['--nodes', '0'], /--nodes takes a count from 1 to 9, not "0"/],
  [['--nodes', 'three'], /not "three"/],
  [['--kill'], /--kill takes one node number/],
  [['--cut', '1', '2'], /--cut takes one node number/],
  [['--load'], /--load takes one or more images/],
  [['--stop', 'now'], /--stop takes no argument/],
  [['--swarm'], /unknown argument "--swarm"/],
];
for (const [args, message] of badArguments) {
  test(`bad argument ${JSON.stringify(args)}: one line, exit 2`, () => {
    const { code, stdout, stderr } = run(...args);
    assert.is(code, 2);
    assert.is(stdout, '');
    assert.is(stderr.trim().split('\n').length, 1, stderr);
    assert.match(stderr, message);
    assert.match(stderr, /^swarm-nodes: .*\(usage: bash scripts\/swarm-nodes\.sh --nodes N/);
  });
}

(asRoot ? test : test.skip)('a second --nodes while one is up is refused with one line, nothing touched', () => {
  writeFileSync(join(dir, 'nodes'), '3\n');
  writeFileSync(join(dir, 'lock'), ''); // the script's lock, which any run opens
  const before = readdirSync(dir).sort();
  const { code, stdout, stderr } = run('--nodes', '2');
  assert.is(code, 1);
  assert.is(stdout, '');
  assert.is(
    stderr,
    `swarm-nodes: a 3-node swarm is already up under ${dir} ` +
      `(manager socket ${dir}/node-1/docker.sock); --stop removes it\n`,
  );
  assert.equal(readdirSync(dir).sort(), before);
});

(asRoot ? test : test.skip)('a node that is not there: one line, exit 1', () => {
  writeFileSync(join(dir, 'nodes'), '3\n');
  const { code, stderr } = run('--kill', '4');
  assert.is(code, 1);
  assert.is(stderr, 'swarm-nodes: there is no node 4 (nodes 1 to 3 are up)\n');
});

const hubUp = () =>
  spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .stdout.split('\n')
    .some((l) => l.startsWith(`${HUB} `) || l === HUB);

(asRoot ? test : test.skip)("a --nodes run while another directory's swarm is up: one line, nothing touched", () => {
  // The names are the machine's: the hub namespace alone says a swarm is up. This file's own hub, made here.
  spawnSync('ip', ['netns', 'add', HUB]);
  const other = mkdtempSync(join(tmpdir(), 'swarm-nodes-other-'));
  try {
    const result = spawnSync('bash', [join(root, 'scripts/swarm-nodes.sh'), '--nodes', '2'], {
      env: { ...process.env, SWARM_NODES_DIR: other, SWARM_HUB_NAMESPACE: HUB },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.is(result.status, 1);
    assert.is(result.stdout, '');
    assert.is(
      result.stderr,
      `swarm-nodes: a swarm of this script is already up on this machine (namespace ${HUB}): one per machine; ` +
        '--stop with its SWARM_NODES_DIR removes it\n',
    );
    assert.equal(readdirSync(other), ['lock']);
    assert.ok(hubUp(), "the other swarm's hub is still there");
  } finally {
    rmSync(other, { recursive: true, force: true });
    spawnSync('ip', ['netns', 'del', HUB]);
  }
});

(asRoot ? test : test.skip)(
  '--stop with a stale count and no node: the count and the lock removed, nothing else',
  () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'nodes'), '3\n');
    spawnSync('ip', ['netns', 'add', HUB]); // up, but not made under this directory (no `hub` file)
    try {
      const { code, stdout, stderr } = run('--stop');
      assert.is(code, 0);
      assert.is(stdout, '');
      assert.is(stderr, 'swarm-nodes: removed the 3-node swarm, its namespaces, links and files\n');
      assert.not.ok(existsSync(dir), 'the emptied directory is gone, lock and all');
      assert.ok(hubUp(), 'a hub this directory did not make is left alone');
    } finally {
      spawnSync('ip', ['netns', 'del', HUB]);
    }
  },
);

(asRoot ? test : test.skip)('--stop with nothing up: one line, exit 0, no lock file left', () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'keep'), ''); // not the script's: the directory stays
  const { code, stdout, stderr } = run('--stop');
  assert.is(code, 0);
  assert.is(stdout, '');
  assert.is(stderr, `swarm-nodes: no swarm of this script is up under ${dir}\n`);
  assert.equal(readdirSync(dir), ['keep']);
});

test.run();
