// Finding the system Chromium, and a launch that always leaves no process and no profile behind.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CHROMIUM_PATHS,
  chromiumArgs,
  findChromium,
  headlessMode,
  launchBrowser,
  type LaunchedBrowser,
} from './browser.ts';
import { listen, type Listening } from '../test/support/listen.ts';
import { CLIError } from '../tools/cli-error.ts';
import { waitFor, withDeadline } from '../test/support/deadline.ts';

const dir = mkdtempSync(join(tmpdir(), 'smoke-browser-test-'));
const fakeChrome = join(dir, 'chrome');
writeFileSync(fakeChrome, '#!/bin/sh\nexit 1\n');
chmodSync(fakeChrome, 0o755);
let launched: LaunchedBrowser | undefined;
let server: Listening | undefined;

test.after(async () => {
  await launched?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('CHROME_PATH wins over PUPPETEER_EXECUTABLE_PATH, which wins over the usual paths', () => {
  assert.is(findChromium({ CHROME_PATH: fakeChrome, PUPPETEER_EXECUTABLE_PATH: '/usr/bin/chromium' }), fakeChrome);
  assert.is(findChromium({ PUPPETEER_EXECUTABLE_PATH: fakeChrome }), fakeChrome);
  assert.is(findChromium({}, ['/nonexistent/a', fakeChrome]), fakeChrome);
  assert.is(
    findChromium({}),
    CHROMIUM_PATHS.find((path) => existsSync(path)),
  );
});

test("the old headless shell (Debian's or Google's) is launched as one; any other binary as Chromium", () => {
  assert.is(headlessMode('/usr/bin/chromium-headless-shell'), 'shell');
  assert.is(headlessMode('/opt/chrome-headless-shell-linux64/chrome-headless-shell'), 'shell');
  assert.is(headlessMode('/usr/bin/chromium'), true);
  assert.is(headlessMode('/opt/headless-shell-tools/chrome'), true);
});

test('nothing found: one line with an install hint; a variable pointing nowhere is not silently skipped', () => {
  assert.throws(
    () => findChromium({}, ['/nonexistent/a', '/nonexistent/b']),
    (e: Error) =>
      e instanceof CLIError &&
      e.message ===
        'no Chromium found (looked in /nonexistent/a, /nonexistent/b, ...); ' +
          'install Chromium (apt-get install chromium) or set CHROME_PATH to a Chrome/Chromium executable',
  );
  assert.throws(
    () => findChromium({ CHROME_PATH: join(dir, 'missing') }),
    (e: Error) =>
      e.message.startsWith(`CHROME_PATH=${join(dir, 'missing')} is not an executable file; install Chromium`) &&
      !e.message.includes('\n'),
  );
  // A file that exists but is not executable is not a browser either.
  writeFileSync(join(dir, 'plain'), '');
  assert.throws(
    () => findChromium({ PUPPETEER_EXECUTABLE_PATH: join(dir, 'plain') }),
    /PUPPETEER_EXECUTABLE_PATH=.* is not an executable file/,
  );
});

test('flags: --no-sandbox only as root; the closed-network, container and no-preload flags always', () => {
  assert.ok(chromiumArgs({ root: true }).includes('--no-sandbox'));
  assert.not.ok(chromiumArgs({ root: false }).includes('--no-sandbox'));
  for (const flag of [
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-gpu',
    '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
  ]) {
    assert.ok(chromiumArgs({ root: false }).includes(flag), flag);
  }
});

// Each Chromium this machine has: the old headless shell the smoke prefers, and the full browser most users have.
const installed = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].filter((path) => existsSync(path));

test('launchBrowser renders a page; close() ends the process and removes the temporary profile', async () => {
  assert.ok(installed.length > 0, 'no Chromium installed');
  server = await listen((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>hello</h1>'));
  for (const executablePath of installed) await rendersAndCloses(executablePath, server.url);
});

async function rendersAndCloses(executablePath: string, url: string) {
  launched = await withDeadline(launchBrowser({ executablePath }), 30_000, `launching ${executablePath}`);
  const { browser, userDataDir } = launched;
  assert.ok(existsSync(userDataDir), 'profile exists while running');
  const args = browser.process()?.spawnargs ?? [];
  assert.ok(args.includes(`--user-data-dir=${userDataDir}`), args.join(' '));
  assert.ok(args.includes('--disable-background-networking'));
  assert.ok(args.includes(headlessMode(executablePath) === 'shell' ? '--headless' : '--headless=new'), args.join(' '));
  const page = await browser.newPage();
  await page.goto(url, { timeout: 10_000 });
  assert.is(await page.$eval('h1', (h) => h.textContent), 'hello');
  const pid = browser.process()!.pid!;
  await withDeadline(launched.close(), 10_000, 'closing Chromium');
  await launched.close(); // a second close is harmless
  await waitFor(() => !alive(pid), { timeout: 5000, what: `Chromium ${pid} gone` });
  assert.not.ok(existsSync(userDataDir), 'profile removed');
  launched = undefined;
}

test('a browser that cannot start rejects and leaves no profile directory', async () => {
  // os.tmpdir() reads TMPDIR on every call: a private one shows exactly what this launch left behind.
  const privateTmp = join(dir, 'tmp');
  mkdirSync(privateTmp);
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = privateTmp;
  try {
    const launch = launchBrowser({ executablePath: fakeChrome, timeout: 5000 }).then(
      () => null,
      (e: Error) => e,
    );
    const error = await withDeadline(launch, 10_000, 'failed launch');
    assert.instance(error, Error);
    assert.match((error as Error).message, /Failed to launch the browser process/);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  assert.equal(readdirSync(privateTmp), []);
});

test.run();
