// Capturing a page that may be stuck: every step has a bound, so a hostile page cannot hold the run.
import { writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'puppeteer-core';
import { withDeadline } from '../lib/with-deadline.ts';
import type { NavigationWatch } from './navigation-watch.ts';

// Chromium's own limit on a texture's side; past it a capture fails rather than being cut.
const MAX_CAPTURE_PX = 16_384;

// A page's first moves each give its picture the whole bound again, once to land and once to be captured: beside a
// loaded CI run, one landing took 2.4 s and each capture over 2 s (the capture the move overlapped answering first),
// so a page that moved on once missed a 5 s bound in 3 of 160 loads. A page that keeps moving gets no more than this.
const FRESH_BOUNDS_FOR_MOVES = 2;

/**
 * Writes the screenshot; returns null, or the reason it could not be taken. After a failed navigation Chromium
 * swaps in its error page, and a capture during the swap fails with "not attached", so it is retried briefly.
 * A page that moves on by itself (meta refresh, location.replace()) switches documents: a capture spanning the
 * switch may never be answered, so with a `watch` the capture waits for a move under way to land, and one
 * overlapped by a move is dropped and taken again from the new document.
 */
export async function screenshot(
  page: Page,
  path: string,
  ms: number,
  watch?: NavigationWatch,
): Promise<string | null> {
  const started = Date.now();
  const movesBefore = watch?.moves() ?? 0;
  const bound = renewableBound(ms);
  let fresh = FRESH_BOUNDS_FOR_MOVES;
  const taken = (async () => {
    let renewOnLanding = false;
    while (!bound.expired()) {
      // The last third of the bound is kept for a capture, so a move that never lands still gets its picture.
      if (watch?.moving()) await watch.landed(bound.left() - ms / 3);
      if (renewOnLanding) bound.renew();
      renewOnLanding = false;
      let wanted = true;
      const capture = capturePng(page, path, () => wanted && !bound.expired()).then(() => 'taken' as const);
      const moved = watch?.nextMove().then(() => 'moved' as const) ?? new Promise<never>(() => {});
      try {
        if ((await Promise.race([capture, moved])) === 'taken') return null;
        wanted = false; // the document it was taken from is going away; its answer, if any, comes too late
        capture.catch(() => {});
        renewOnLanding = fresh-- > 0;
        if (renewOnLanding) bound.renew();
      } catch (error) {
        const message = (error as Error).message.split('\n')[0]!;
        if (!/not attached|detached|target closed|session closed/i.test(message) || bound.left() <= 100) {
          return `screenshot failed: ${message}`;
        }
        await sleep(100);
      }
    }
    return null; // unreachable in effect: the bound has answered already
  })();
  try {
    if ((await Promise.race([taken, bound.expiry])) !== 'expired') return await taken;
  } finally {
    bound.stop();
  }
  const moved = (watch?.moves() ?? 0) - movesBefore;
  if (!moved) return `screenshot not taken within ${ms}ms`;
  const times = `${moved} time${moved === 1 ? '' : 's'}`;
  return `screenshot not taken within ${Date.now() - started}ms (the page moved on ${times} meanwhile)`;
}

/** A deadline `ms` from now that `renew()` sets `ms` from then; once expired, it stays expired. */
function renewableBound(ms: number) {
  let until = 0;
  let timer: NodeJS.Timeout | undefined;
  let expired = false;
  let expire!: (value: 'expired') => void;
  const expiry = new Promise<'expired'>((resolve) => (expire = resolve));
  const renew = () => {
    if (expired) return;
    clearTimeout(timer);
    until = Date.now() + ms;
    timer = setTimeout(() => {
      expired = true;
      expire('expired');
    }, ms);
  };
  renew();
  return {
    expiry,
    renew,
    expired: () => expired,
    left: () => until - Date.now(),
    stop: () => clearTimeout(timer),
  };
}

/**
 * One capture of the whole page (not only the viewport: a status page runs on below its first screen) through the
 * DevTools protocol, written to `path` if `stillWanted()`. Not page.screenshot(): puppeteer serialises captures
 * behind a browser-wide lock, and a capture of a page that never paints holds it forever, so the next tab (the
 * failure card) could neither open nor be captured.
 */
export async function capturePng(page: Page, path: string, stillWanted: () => boolean = () => true): Promise<void> {
  const session = await page.createCDPSession();
  try {
    const { cssContentSize, cssLayoutViewport } = await session.send('Page.getLayoutMetrics');
    // The page's full height, bounded: a page that grows without end is cut, not captured into a huge image.
    const width = Math.max(1, Math.ceil(Math.max(cssContentSize.width, cssLayoutViewport.clientWidth)));
    const height = Math.min(MAX_CAPTURE_PX, Math.max(1, Math.ceil(cssContentSize.height)));
    const clip = { x: 0, y: 0, width: Math.min(width, MAX_CAPTURE_PX), height, scale: 1 };
    const { data } = await session.send('Page.captureScreenshot', { format: 'png', clip, captureBeyondViewport: true });
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
  await withDeadline(promise, ms, 'a page step').catch(() => {});
}
