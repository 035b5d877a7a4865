// Test support: a tab whose captures and moves a test scripts, for smoke/page-capture.ts without Chromium. Each
// capture answers with its own bytes after the delay the script gives it (never, for Infinity); the watch moves and
// lands when the test says.
import type { Page } from 'puppeteer-core';
import type { NavigationWatch } from '../../smoke/navigation-watch.ts';

/** A page whose n-th capture answers `capture ${n}` after `delays[n - 1]` ms (the last delay for any later one). */
export function scriptedPage(delays: number[]): { page: Page; captures: () => number } {
  let captures = 0;
  const capture = () => {
    const n = ++captures;
    const delay = delays[Math.min(n, delays.length) - 1]!;
    const data = Buffer.from(`capture ${n}`).toString('base64');
    return new Promise((resolve) => void (delay !== Infinity && setTimeout(() => resolve({ data }), delay)));
  };
  const metrics = { cssContentSize: { width: 10, height: 10 }, cssLayoutViewport: { clientWidth: 10 } };
  const session = {
    send: (method: string) => (method === 'Page.captureScreenshot' ? capture() : Promise.resolve(metrics)),
    detach: () => Promise.resolve(),
  };
  const page = { createCDPSession: () => Promise.resolve(session) } as unknown as Page;
  return { page, captures: () => captures };
}

/** A NavigationWatch the test drives: `move()` starts a move to another document, `land()` ends it. */
export function scriptedWatch(): NavigationWatch & { move(): void; land(): void } {
  let moving = false;
  let moves = 0;
  let onMove: Array<() => void> = [];
  let onLand: Array<() => void> = [];
  const wake = (waiting: Array<() => void>) => waiting.forEach((resolve) => resolve());
  return {
    moving: () => moving,
    moves: () => moves,
    nextMove: () => new Promise<void>((resolve) => onMove.push(resolve)),
    landed: (ms) =>
      moving
        ? new Promise<void>((resolve) => (onLand.push(resolve), setTimeout(resolve, Math.max(0, ms))))
        : Promise.resolve(),
    detach: () => Promise.resolve(),
    move: () => {
      moving = true;
      moves++;
      wake(onMove);
      onMove = [];
    },
    land: () => {
      moving = false;
      wake(onLand);
      onLand = [];
    },
  };
}
