// One attempt of the LOAD probe: open the frontend in a fresh tab, record what went wrong on the page, screenshot it.
import { basename, join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { screenshotName, type Outcome } from './artifacts.ts';
import { watchDocument } from './document-receipt.ts';
import { writeFailureCard } from './failure-card.ts';
import { gotoDocument, watchNavigation } from './navigation-watch.ts';
import { bounded, screenshot as capture, stopLoading } from './page-capture.ts';
import { writePlaceholderPng } from './placeholder-png.ts';
import { withDeadline } from '../lib/with-deadline.ts';
import { signInOperator } from './operator-sign-in.ts';

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
  /** Sign in as an operator with this token before loading the page (smoke/operator-sign-in.ts). */
  operatorToken?: string | null;
}

const MAX_ISSUES = 20;
const CERT_ERROR = /^net::ERR_CERT_/;
const CERT_HINT =
  "the page's certificate is not trusted here (give the CA that signed it with --ca-file or SMOKE_CA_FILE)";
const VIEWPORT = { width: 1280, height: 800 };
// A page known to be stuck gets this long for its picture. Most paint what arrived within a few hundred ms, but
// with the machine busy a capture took 1.2 to 7.4 s (six Chromiums, load average 39), and 1.5 s was missed once
// in a run of the whole suite beside two CPU burners; a document that never paints costs the run this much.
export const STUCK_SHOT_MS = 3000;
const SETTLE_MS = 300;
// Drawing the failure card: a fresh tab, a small page, one screenshot.
const CARD_MS = 5000;

/**
 * The reported ms is the page's time to a verdict (loaded, failed, or the timeout), which is what a person
 * reads from the line; the screenshot comes after, under its own bound, so a stuck page cannot hold the run.
 */
export async function loadProbe(
  browser: Browser,
  { url, timeout, artifacts, strict, operatorToken }: LoadOptions,
): Promise<LoadAttempt> {
  const page = await browser.newPage();
  const issues: string[] = [];
  const recorder = _recordIssues(page, issues);
  const reasons: string[] = [];
  let outcome: Outcome = 'ok';
  let stack: string | undefined;
  // Watching the document (for the failure card) and the tab's moves (for the capture) only helps: a browser that
  // refuses either must not fail the probe.
  const [, watch, moves] = await Promise.all([
    page.setViewport(VIEWPORT),
    watchDocument(page).catch(() => undefined),
    watchNavigation(page).catch(() => undefined),
  ]);
  const started = performance.now();
  let shotWithin = Math.min(Math.max(timeout, 2000), 10_000);
  let stuck = false;
  try {
    const refused = operatorToken ? await signInOperator(page, url, operatorToken, timeout) : null;
    const res = refused === null ? await gotoDocument(page, url, timeout) : undefined;
    if (refused !== null) {
      outcome = 'fail';
      reasons.push(refused);
    } else if (!res) {
      outcome = 'fail';
      reasons.push('no response for the page');
    } else if (res.status() < 200 || res.status() > 299) {
      outcome = 'fail';
      reasons.push(`HTTP ${res.status()}${res.statusText() ? ` ${res.statusText()}` : ''}`);
    }
  } catch (error) {
    const { message = String(error), stack: trace } = error as Error;
    // By name: puppeteer-core is loaded only when the smoke runs (it is an optional dependency), never imported here.
    if ((error as Error).name === 'TimeoutError') {
      outcome = 'fail';
      reasons.push(`page did not finish loading within ${timeout}ms`);
      stuck = true;
    } else {
      outcome = 'error';
      const first = message.split('\n')[0]!;
      // A certificate Chromium does not trust is a known condition with a known fix, not a crash: a hint, no trace.
      if (CERT_ERROR.test(first)) reasons.push(`${first}: ${CERT_HINT}`);
      else {
        reasons.push(first);
        stack = trace ?? message;
      }
    }
  }
  // Puppeteer may emit a sub-request's response after the load event that followed it: let those settle.
  if (outcome === 'ok') await recorder.settled(SETTLE_MS);
  if (strict && issues.length && outcome === 'ok') {
    outcome = 'fail';
    reasons.push(`--strict: ${issues.length} page issue${issues.length === 1 ? '' : 's'}`);
  }
  const ms = Math.round(performance.now() - started);
  recorder.stop(); // what the verdict saw; requests cut off by stopping the load below are ours, not the page's
  if (stuck) {
    // Stopping the load lets Chromium paint what arrived; some stuck documents (a JSON body that never
    // ends) never paint at all, so the capture of a page known to be stuck gets only a short grace.
    await bounded(stopLoading(page), 500);
    shotWithin = STUCK_SHOT_MS;
  }
  let screenshot: string | null = join(artifacts, screenshotName(outcome));
  const shot = await capture(page, screenshot, shotWithin, moves);
  const unknown = { summary: 'not known (the browser did not say)' };
  const received = shot && watch ? await answerOr(watch.receipt(), 1000, unknown) : unknown;
  await bounded(Promise.all([watch?.detach(), moves?.detach()]), 500);
  // A renderer stuck on a hostile page may never confirm the close; the browser's close ends it anyway.
  await bounded(page.close(), 1000);
  if (shot) {
    const facts = { url, reasons: [...reasons, shot], ms, timeout, received, at: new Date() };
    screenshot = await standIn(browser, join(artifacts, screenshotName(outcome === 'ok' ? 'fail' : outcome)), {
      shot,
      facts,
      reasons,
    });
  }
  const shown =
    issues.length > MAX_ISSUES
      ? [...issues.slice(0, MAX_ISSUES), `... and ${issues.length - MAX_ISSUES} more`]
      : issues;
  return {
    ok: outcome === 'ok' && !shot,
    ms,
    reasons,
    issues: shown,
    screenshot,
    ...(stack ? { stack } : {}),
  };
}

/**
 * No picture of the page: a card drawn in a fresh tab stands in for it (else a grey placeholder), and a reason
 * says so. Returns the file written, null when neither could be.
 */
async function standIn(
  browser: Browser,
  file: string,
  { shot, facts, reasons }: { shot: string; facts: Parameters<typeof writeFailureCard>[2]; reasons: string[] },
): Promise<string | null> {
  const name = basename(file);
  const card = await writeFailureCard(browser, file, facts, CARD_MS);
  if (!card) {
    reasons.push(
      `${shot}: the page could not be painted, so ${name} is a failure card ` +
        `(URL, reason, elapsed time, what was received), not the page`,
    );
    return file;
  }
  const placeholder = await writePlaceholderPng(file).then(
    () => true,
    () => false,
  );
  reasons.push(placeholder ? `${shot}; ${card}, so ${name} is a blank grey placeholder, not the page` : shot);
  if (!placeholder) reasons.push(card);
  return placeholder ? file : null;
}

/** `promise`'s value, or `fallback` when it does not settle well within `ms`. */
const answerOr = <T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> =>
  withDeadline(promise, ms, 'the document receipt').catch(() => fallback);

/** Console errors, uncaught exceptions and failed sub-requests; the page's own navigation is judged separately. */
function _recordIssues(page: Page, issues: string[]) {
  let recording = true;
  const pending = new Set<unknown>();
  let onSettled: (() => void) | undefined;
  const settle = (req: unknown) => {
    pending.delete(req);
    if (pending.size === 0) onSettled?.();
  };
  page.on('request', (req) => void (!req.isNavigationRequest() && pending.add(req)));
  page.on('requestfinished', settle);
  const add = (line: string) => recording && issues.push(line.replace(/\s+/g, ' ').trim().slice(0, 300));
  page.on('console', (msg) => {
    // Chromium also logs every failed sub-request to the console; those are listed once, as requests.
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
      add(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (error) => add(`page exception: ${error instanceof Error ? error.message : String(error)}`));
  page.on('requestfailed', (req) => {
    settle(req);
    if (!req.isNavigationRequest())
      add(`request failed: ${req.method()} ${req.url()} ${req.failure()?.errorText ?? ''}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400 && !res.request().isNavigationRequest()) {
      add(`request failed: ${res.request().method()} ${res.url()} HTTP ${res.status()}`);
    }
  });
  return {
    stop: () => void (recording = false),
    /** Resolves once every sub-request seen so far has finished or failed, or after `ms`. */
    settled: (ms: number) =>
      pending.size === 0 ? Promise.resolve() : bounded(new Promise<void>((resolve) => (onSettled = resolve)), ms),
  };
}
