// Whether the tab is on its way to another document (a meta refresh, location.replace()): a capture that spans
// the switch of documents can go unanswered for good, so the screenshot waits for the move to land instead. And
// the load itself: puppeteer's goto() resolves with no response when the page it loaded moves on at once (a meta
// refresh of 0 s): 1 of 6 such loads on a loaded machine failed as "no response for the page" although the page had
// answered 200. The first document the main frame was answered with (past redirects) stands in then.
import type { CDPSession, HTTPResponse, Page } from 'puppeteer-core';
import { withDeadline } from '../lib/with-deadline.ts';

export interface NavigationWatch {
  /** True from the start of a main-frame navigation to another document until the tab stops loading. */
  moving(): boolean;
  /** Main-frame navigations to another document started so far (the page's own load included). */
  moves(): number;
  /** Resolves at the next start of such a navigation. */
  nextMove(): Promise<void>;
  /** Resolves once no such navigation is under way, or after `ms`, whichever comes first. */
  landed(ms: number): Promise<void>;
  detach(): Promise<void>;
}

const SAME_DOCUMENT = new Set(['sameDocument', 'historySameDocument']);

/**
 * Starts watching before the page's own navigation. Puppeteer says when a navigation commits, not when one starts
 * or stops (a 204 or a download ends one without a commit), so a session of our own reads the raw frame events.
 */
export async function watchNavigation(page: Page): Promise<NavigationWatch> {
  const session: CDPSession = await page.createCDPSession();
  await session.send('Page.enable');
  const { frameTree } = await session.send('Page.getFrameTree');
  const main = frameTree.frame.id;
  let moving = false;
  let moves = 0;
  const onMove = new Set<() => void>();
  const onLand = new Set<() => void>();
  const wake = (waiting: Set<() => void>) => {
    for (const resolve of [...waiting]) resolve();
    waiting.clear();
  };
  const start = (frameId: string) => {
    if (frameId !== main || moving) return;
    moving = true;
    moves++;
    wake(onMove);
  };
  // Same-document navigations (pushState, #hash, back within the page) keep the document: a capture is safe.
  session.on('Page.frameStartedNavigating', (e) => void (!SAME_DOCUMENT.has(e.navigationType) && start(e.frameId)));
  session.on('Page.frameStartedLoading', (e) => start(e.frameId));
  session.on('Page.frameStoppedLoading', (e) => {
    if (e.frameId !== main) return;
    moving = false;
    wake(onLand);
  });
  return {
    moving: () => moving,
    moves: () => moves,
    nextMove: () => new Promise<void>((resolve) => onMove.add(resolve)),
    landed: async (ms) => {
      if (!moving) return;
      let done!: () => void;
      const landing = new Promise<void>((resolve) => onLand.add((done = resolve)));
      await withDeadline(landing, ms, 'the page to land').catch(() => onLand.delete(done));
    },
    detach: () => {
      onMove.clear();
      onLand.clear();
      return session.detach().catch(() => {});
    },
  };
}

/** `page.goto(url)` up to its load event; its response, or the first document's when goto() lost it. */
export async function gotoDocument(page: Page, url: string, timeout: number): Promise<HTTPResponse | null> {
  let first: HTTPResponse | undefined;
  const onResponse = (response: HTTPResponse) => {
    const redirect = response.status() >= 300 && response.status() < 400;
    if (first || redirect || response.frame() !== page.mainFrame()) return;
    if (response.request().isNavigationRequest()) first = response;
  };
  page.on('response', onResponse);
  try {
    return (await page.goto(url, { waitUntil: 'load', timeout })) ?? first ?? null;
  } finally {
    page.off('response', onResponse);
  }
}
