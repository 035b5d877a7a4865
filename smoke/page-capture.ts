// Capturing a page that may be stuck: every step has a bound, so a hostile page cannot hold the run.
import { writeFile } from 'node:fs/promises';
import type { Page } from 'puppeteer-core';

/**
 * Writes the screenshot; returns null, or the reason it could not be taken. After a failed navigation Chromium
 * swaps in its error page, and a capture during the swap fails with "not attached", so it is retried briefly.
 */
export async function screenshot(page: Page, path: string, ms: number): Promise<string | null> {
  const until = Date.now() + ms;
  let timer: NodeJS.Timeout | undefined;
  let gaveUp = false;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => {
      gaveUp = true; // a capture that answers after this must not overwrite what is written in its place
      resolve(`screenshot not taken within ${ms}ms`);
    }, ms);
  });
  const taken = (async () => {
    for (;;) {
      try {
        await capturePng(page, path, () => !gaveUp);
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

/**
 * One capture through the DevTools protocol, written to `path` if `stillWanted()`. Not page.screenshot():
 * puppeteer serialises captures behind a browser-wide lock, and a capture of a page that never paints holds it
 * forever, so the next tab (the failure card) could neither open nor be captured.
 */
export async function capturePng(page: Page, path: string, stillWanted: () => boolean = () => true): Promise<void> {
  const session = await page.createCDPSession();
  try {
    const { data } = await session.send('Page.captureScreenshot', { format: 'png' });
    if (stillWanted()) await writeFile(path, Buffer.from(data, 'base64'));
  } finally {
    void session.detach().catch(() => {});
  }
}

export async function stopLoading(page: Page): Promise<void> {
  const session = await page.createCDPSession();
  await session.send('Page.stopLoading');
  await session.detach();
}

/** Waits for `promise` at most `ms`; its outcome, whatever it is, no longer matters after that. */
export async function bounded(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([
    promise.then(
      () => {},
      () => {},
    ),
    late,
  ]);
  clearTimeout(timer);
}
