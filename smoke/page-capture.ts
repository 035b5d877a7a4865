// Capturing a page that may be stuck: every step has a bound, so a hostile page cannot hold the run.
import type { Page } from 'puppeteer-core';

/**
 * Writes the screenshot; returns null, or the reason it could not be taken. After a failed navigation Chromium
 * swaps in its error page, and a capture during the swap fails with "not attached", so it is retried briefly.
 */
export async function screenshot(page: Page, path: string, ms: number): Promise<string | null> {
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

export async function stopLoading(page: Page): Promise<void> {
  const session = await page.createCDPSession();
  await session.send('Page.stopLoading');
  await session.detach();
}

/** Waits for `promise` at most `ms`; its outcome, whatever it is, no longer matters after that. */
export async function bounded(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([promise.then(() => {}, () => {}), late]);
  clearTimeout(timer);
}
