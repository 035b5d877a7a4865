// Finds the system Chromium and launches it headless with flags that work in containers and on a closed network.
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { withDeadline } from '../lib/with-deadline.ts';
import { CLIError } from '../tools/cli-error.ts';

/**
 * Where Chromium or Chrome usually lives on Linux and macOS, most likely first; Chromium's old headless shell (Debian's
 * `chromium-headless-shell`) before it where installed: it is the same engine without the browser's window layer, and
 * a launch, a page and a screenshot cost it half the CPU (1.6 against 3.0 CPU-s on Chromium 156).
 */
export const CHROMIUM_PATHS = [
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/opt/google/chrome/chrome',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

export const INSTALL_HINT =
  'install Chromium (apt-get install chromium) or set CHROME_PATH to a Chrome/Chromium executable';

// Chromium's own words when its sandbox cannot start (no setuid helper, no unprivileged user namespaces).
export const NO_USABLE_SANDBOX = /No usable sandbox/;

export const SANDBOX_HINT =
  'Chromium found no usable sandbox ("No usable sandbox!": unprivileged user namespaces are restricted here, ' +
  "as by AppArmor on Ubuntu 23.10+ and GitHub's ubuntu-24.04 runners); " +
  'set CHROME_PATH to a browser whose sandbox works (e.g. /usr/bin/google-chrome), ' +
  'or run without the sandbox on purpose with --no-sandbox or SMOKE_NO_SANDBOX=1';

export const NO_PUPPETEER =
  'puppeteer-core is not installed (an optional dependency, left out by --omit=optional): the LOAD probe drives ' +
  'Chromium through it; install it with npm install puppeteer-core';

type Launch = (typeof import('puppeteer-core'))['launch'];
let loading: Promise<Launch> | undefined;

/**
 * puppeteer-core, loaded when a smoke first needs it rather than when this module is imported: it is an optional
 * dependency (the service images leave it out), and without it the smoke must say so in one line, not crash.
 */
export function loadPuppeteer(): Promise<Launch> {
  return (loading ??= import('puppeteer-core').then(
    (module) => module.launch,
    (error: NodeJS.ErrnoException) => {
      const missing = error.code === 'ERR_MODULE_NOT_FOUND' && error.message.includes("'puppeteer-core'");
      throw missing ? new CLIError(NO_PUPPETEER, { cause: error }) : error;
    },
  ));
}

const _isExecutable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The browser to drive: CHROME_PATH, then PUPPETEER_EXECUTABLE_PATH, then the usual install paths.
 * An explicit variable that points nowhere is an error rather than silently falling back.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env, candidates = CHROMIUM_PATHS): string {
  for (const name of ['CHROME_PATH', 'PUPPETEER_EXECUTABLE_PATH'] as const) {
    const value = env[name];
    if (!value) continue;
    if (_isExecutable(value)) return value;
    throw new CLIError(`${name}=${value} is not an executable file; ${INSTALL_HINT}`);
  }
  const found = candidates.find(_isExecutable);
  if (found) return found;
  throw new CLIError(`no Chromium found (looked in ${candidates.slice(0, 3).join(', ')}, ...); ${INSTALL_HINT}`);
}

/**
 * Flags for headless runs in containers and CI. The background-networking, component-update and sync
 * flags matter on a closed network: without them Chromium dials out at start-up and gets refused.
 */
export function chromiumArgs({ root = process.getuid?.() === 0, sandbox = true } = {}): string[] {
  return [
    // The sandbox refuses to start as root; otherwise it goes off only when the user asked (--no-sandbox).
    ...(root || !sandbox ? ['--no-sandbox'] : []),
    '--disable-dev-shm-usage', // /dev/shm is 64 MB in most containers
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-gpu',
    // Chromium 14x preloads its omnibox popups (two WebUI pages) even headless: 0.2–0.3 s of CPU a launch.
    '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
  ];
}

/** Puppeteer's headless mode for the binary: the old headless shell takes `--headless`, Chromium `--headless=new`. */
export function headlessMode(executablePath: string): true | 'shell' {
  return /headless[-_]shell$/.test(basename(executablePath)) ? 'shell' : true;
}

export interface LaunchOptions {
  executablePath?: string;
  env?: NodeJS.ProcessEnv;
  /** Launch deadline in ms. */
  timeout?: number;
  extraArgs?: string[];
  /** False only when the user opted out of Chromium's sandbox by name; never switched off as a fallback. */
  sandbox?: boolean;
}

export interface LaunchedBrowser {
  browser: Browser;
  executablePath: string;
  userDataDir: string;
  /** Closes the browser (killing it if it does not close in time) and removes its temporary profile. */
  close(): Promise<void>;
}

export async function launchBrowser(options: LaunchOptions = {}): Promise<LaunchedBrowser> {
  const launch = await loadPuppeteer();
  const executablePath = options.executablePath ?? findChromium(options.env);
  const userDataDir = await mkdtemp(join(tmpdir(), 'smoke-chromium-'));
  const removeProfile = () => rm(userDataDir, { recursive: true, force: true, maxRetries: 3 });
  let browser: Browser;
  try {
    browser = await launch({
      executablePath,
      headless: headlessMode(executablePath),
      userDataDir,
      args: [...chromiumArgs({ sandbox: options.sandbox ?? true }), ...(options.extraArgs ?? [])],
      timeout: options.timeout ?? 30_000,
      // Puppeteer's default lets one stuck DevTools call wait 3 minutes; nothing here should take 30 s.
      protocolTimeout: 30_000,
      // We close the browser ourselves in cleanup; puppeteer's own signal handlers would race it.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (error) {
    await removeProfile();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async function closeBrowser() {
      const proc = browser.process();
      // A browser that has not closed within 5 s is killed, and its close (which ends with the process) still
      // awaited; one whose close fails is killed too. Either way its profile goes.
      const closed = browser.close();
      const kill = () => proc?.kill('SIGKILL');
      await withDeadline(closed, 5000, { what: 'Chromium to close', onExpiry: kill })
        .catch(() => closed)
        .catch(kill);
      await removeProfile();
    })());
  return { browser, executablePath, userDataDir, close };
}
