// One attempt of the LOAD probe: open the frontend in a fresh tab, record what went wrong on the page, screenshot it.
import { join } from 'node:path';
import { TimeoutError, type Browser, type Page } from 'puppeteer-core';
import { screenshotName, type Outcome } from './artifacts.ts';

export interface LoadAttempt {
  ok: boolean;
  ms: number;
  reasons: string[];
  issues: string[];
  screenshot: string | null;
  /** Set when an exception (not a plain failed check) ended the load; the runner prints it. */
  stack?: string;
}

export interface LoadOptions {
  url: string;
  timeout: number;
  artifacts: string;
  strict: boolean;
}

const MAX_ISSUES = 20;
const VIEWPORT = { width: 1280, height: 800 };

export async function loadProbe(browser: Browser, { url, timeout, artifacts, strict }: LoadOptions): Promise<LoadAttempt> {
  const started = performance.now();
  const page = await browser.newPage();
  const issues: string[] = [];
  const recorder = _recordIssues(page, issues);
  const reasons: string[] = [];
  let outcome: Outcome = 'ok';
  let stack: string | undefined;
  try {
    await page.setViewport(VIEWPORT);
    const res = await page.goto(url, { waitUntil: 'load', timeout });
    if (!res) {
      outcome = 'fail';
      reasons.push('no response for the page');
    } else if (res.status() < 200 || res.status() > 299) {
      outcome = 'fail';
      reasons.push(`HTTP ${res.status()}${res.statusText() ? ` ${res.statusText()}` : ''}`);
    }
  } catch (error) {
    const { message = String(error), stack: trace } = error as Error;
    if (error instanceof TimeoutError) {
      outcome = 'fail';
      reasons.push(`page did not finish loading within ${timeout}ms`);
    } else {
      outcome = 'error';
      reasons.push(message.split('\n')[0]!);
      stack = trace ?? message;
    }
  }
  if (strict && issues.length && outcome === 'ok') {
    outcome = 'fail';
    reasons.push(`--strict: ${issues.length} page issue${issues.length === 1 ? '' : 's'}`);
  }
  recorder.stop();
  const screenshot = join(artifacts, screenshotName(outcome));
  const shot = await _screenshot(page, screenshot, Math.min(Math.max(timeout, 2000), 10_000));
  if (shot) reasons.push(shot);
  await page.close().catch(() => {});
  const shown = issues.length > MAX_ISSUES ? [...issues.slice(0, MAX_ISSUES), `... and ${issues.length - MAX_ISSUES} more`] : issues;
  return {
    ok: outcome === 'ok' && !shot,
    ms: Math.round(performance.now() - started),
    reasons,
    issues: shown,
    screenshot: shot ? null : screenshot,
    ...(stack ? { stack } : {}),
  };
}

/** Console errors, uncaught exceptions and failed sub-requests; the page's own navigation is judged separately. */
function _recordIssues(page: Page, issues: string[]) {
  let recording = true;
  const add = (line: string) => recording && issues.push(line.replace(/\s+/g, ' ').trim().slice(0, 300));
  page.on('console', (msg) => {
    // Chromium also logs every failed sub-request to the console; those are listed once, as requests.
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) add(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (error) => add(`page exception: ${error instanceof Error ? error.message : String(error)}`));
  page.on('requestfailed', (req) => {
    if (!req.isNavigationRequest()) add(`request failed: ${req.method()} ${req.url()} ${req.failure()?.errorText ?? ''}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400 && !res.request().isNavigationRequest()) {
      add(`request failed: ${res.request().method()} ${res.url()} HTTP ${res.status()}`);
    }
  });
  return { stop: () => void (recording = false) };
}

/**
 * Writes the screenshot; returns null, or the reason it could not be taken. After a failed navigation Chromium
 * swaps in its error page, and a capture during the swap fails with "not attached", so it is retried briefly.
 */
async function _screenshot(page: Page, path: string, ms: number): Promise<string | null> {
  const until = Date.now() + ms;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`screenshot not taken within ${ms}ms`), ms);
  });
  const taken = (async () => {
    for (;;) {
      try {
        await page.screenshot({ path: path as `${string}.png` });
        return null;
      } catch (error) {
        const message = (error as Error).message.split('\n')[0]!;
        if (!/not attached|detached|target closed|session closed/i.test(message) || Date.now() + 100 >= until) {
          return `screenshot failed: ${message}`;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  })();
  return Promise.race([taken, late]).finally(() => clearTimeout(timer));
}
