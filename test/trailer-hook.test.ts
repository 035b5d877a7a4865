// The commit-msg hook with real git: installed as smoke/trailer/README.md says, it lets `git commit -s` and co-authored
// commits through, refuses a misplaced or overclaiming trailer, and git itself reads the smoke line as a trailer.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnProcess, stopAll } from './support/spawn-process.ts';
import { root } from './support/spawn-service.ts';
import { checkMessage } from '../smoke/trailer/check.ts';

const test = suite('trailer-hook');
const dir = mkdtempSync(join(tmpdir(), 'trailer-hook-'));
const repo = join(dir, 'repo');
const SKIPPED = 'smoke: SKIPPED — no container runtime (neither docker nor podman on PATH)';
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Agent',
  GIT_AUTHOR_EMAIL: 'agent@example.org',
  GIT_COMMITTER_NAME: 'Agent',
  GIT_COMMITTER_EMAIL: 'agent@example.org',
  GIT_CONFIG_GLOBAL: join(dir, 'gitconfig'),
  GIT_CONFIG_NOSYSTEM: '1',
};

async function git(args: string[], extra: Record<string, string> = {}, input?: string) {
  const proc = spawnProcess('git', args, {
    cwd: repo,
    env: { ...env, ...extra },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) proc.child.stdin!.end(input);
  // The hook starts tsx through npx: a second or two on a busy machine.
  const code = await proc.waitExit(60_000);
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: proc.stdout, stderr: proc.stderr.join('\n') };
}

let commits = 0;
/** Stages a change so that every commit has something to commit. */
const change = () => writeFileSync(join(repo, 'file.txt'), `change ${++commits}\n`);
const head = async () => (await git(['rev-parse', 'HEAD'])).stdout[0];
const lastMessage = async () => (await git(['log', '-1', '--format=%B'])).stdout.join('\n').trim();

test.before(async () => {
  mkdirSync(repo, { recursive: true });
  writeFileSync(env.GIT_CONFIG_GLOBAL, '');
  // The agent's clone: the project's smoke/ and its installed packages, reached through links.
  symlinkSync(join(root, 'smoke'), join(repo, 'smoke'));
  symlinkSync(join(root, 'node_modules'), join(repo, 'node_modules'));
  writeFileSync(join(repo, '.gitignore'), 'smoke\nnode_modules\n');
  assert.is((await git(['init', '-q', '-b', 'main'])).code, 0);
  // The hook as smoke/trailer/README.md installs it.
  writeFileSync(join(repo, '.git/hooks/commit-msg'), '#!/bin/sh\nexec npx tsx smoke/trailer.ts check "$1"\n');
  chmodSync(join(repo, '.git/hooks/commit-msg'), 0o755);
  change();
  assert.is((await git(['add', '-A'])).code, 0);
});
test.after.each(() => stopAll());
test.after(() => rmSync(dir, { recursive: true, force: true }));

test(
  'git commit -s: the sign-off lands after the trailer, in the same block, ' + 'and the hook lets it through',
  async () => {
    const run = await git(['commit', '-q', '-s', '-m', 'Backend: readiness', '-m', SKIPPED]);
    assert.is(run.code, 0, run.stderr);
    assert.is(await lastMessage(), `Backend: readiness\n\n${SKIPPED}\nSigned-off-by: Agent <agent@example.org>`);
    // git itself reads the smoke line as a trailer of this commit.
    const parsed = await git(['interpret-trailers', '--parse'], {}, `${await lastMessage()}\n`);
    assert.equal(parsed.stdout.filter(Boolean), [SKIPPED, 'Signed-off-by: Agent <agent@example.org>']);
  },
);

test(
  'git commit with a Co-authored-by line after the trailer passes, ' + 'by -m and through the editor with -v',
  async () => {
    change();
    await git(['add', '-A']);
    const coAuthor = 'Co-authored-by: Person <person@example.org>';
    const byM = await git(['commit', '-q', '-m', `Frontend: status page\n\n${SKIPPED}\n${coAuthor}`]);
    assert.is(byM.code, 0, byM.stderr);
    assert.is(await lastMessage(), `Frontend: status page\n\n${SKIPPED}\n${coAuthor}`);
    change();
    await git(['add', '-A']);
    // The hook sees what the editor saved: git's comment lines and, with -v, the diff below the scissors line.
    const editor = join(dir, 'editor.sh');
    writeFileSync(
      editor,
      `#!/bin/sh\n` +
        `{ printf 'Device: reconnect\\n\\n${SKIPPED}\\n${coAuthor}\\n'; cat "$1"; } > "$1.new" && mv "$1.new" "$1"\n`,
    );
    chmodSync(editor, 0o755);
    const byEditor = await git(['commit', '-q', '-v'], { GIT_EDITOR: editor });
    assert.is(byEditor.code, 0, byEditor.stderr);
    assert.is(await lastMessage(), `Device: reconnect\n\n${SKIPPED}\n${coAuthor}`);
  },
);

test(
  'the hook refuses a trailer outside the trailer block, ' + 'and a PASS that does not claim the compose target',
  async () => {
    change();
    await git(['add', '-A']);
    const before = await head();
    const misplaced = await git(['commit', '-q', '-m', 'Backend: readiness', '-m', SKIPPED, '-m', 'A closing remark.']);
    assert.is(misplaced.code, 1);
    assert.match(
      misplaced.stderr,
      /^smoke trailer check: the smoke trailer on line 3 is not in the trailer block at the end of the message/m,
    );
    const overclaim = await git([
      'commit',
      '-q',
      '-s',
      '-m',
      'Backend: readiness',
      '-m',
      'smoke: PASS — local stack 5/5',
    ]);
    assert.is(overclaim.code, 1);
    assert.match(overclaim.stderr, /^smoke trailer check: PASS needs the compose target/m);
    assert.is(await head(), before, 'nothing was committed');
  },
);

// git's whitespace is ASCII space, tab, CR and LF (its own ctype table); JavaScript's \s and trim() also take
// U+00A0, the BOM, U+2028, \v and \f, which once let the check accept a trailer git never sees.
const COAUTHOR = 'Co-authored-by: P <p@x.org>';
const SPACES = { nbsp: '\u00a0', bom: '\ufeff', ls: '\u2028', vt: '\v', ff: '\f', space: ' ', tab: '\t', cr: '\r' };

test(
  'the check sees a trailer exactly where `git interpret-trailers --parse` does, ' + 'whatever the whitespace',
  async () => {
    for (const [name, ch] of Object.entries(SPACES)) {
      const shapes = {
        'a line of it between the body and the trailer': `Backend: readiness\n\nThe body.\n${ch}\n${SKIPPED}\n`,
        'a line of it after the trailer': `Backend: readiness\n\nThe body.\n\n${SKIPPED}\n${ch}\n`,
        'a line starting with it after a trailer': `Backend: readiness\n\n${COAUTHOR}\n${ch}more\n${SKIPPED}\n`,
        'a line of it after the subject': `Backend: readiness\n${ch}\n${SKIPPED}\n`,
      };
      for (const [shape, message] of Object.entries(shapes)) {
        const parsed = await git(['interpret-trailers', '--parse'], {}, message);
        assert.is(parsed.code, 0, parsed.stderr);
        const gitSees = parsed.stdout.includes(SKIPPED);
        const reason = checkMessage(message);
        assert.is(reason === undefined, gitSees, `${name}, ${shape}: git ${gitSees ? 'sees' : 'misses'} it; ${reason}`);
      }
    }
  },
);

test('the hook refuses a trailer that a line holding only U+00A0 keeps from git', async () => {
  change();
  await git(['add', '-A']);
  const before = await head();
  const run = await git(['commit', '-q', '-m', `Backend: readiness\n\nThe body.\n\u00a0\n${SKIPPED}`]);
  assert.is(run.code, 1, 'the commit was refused');
  assert.match(run.stderr, /^smoke trailer check: the smoke trailer on line 5 is not a trailer to git/m);
  assert.is(await head(), before, 'nothing was committed');
});

test.run();
