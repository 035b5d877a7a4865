// Says on stderr what the smoke is waiting for once a wait passes a second (Chromium starting, a page loading), so a
// terminal that shows nothing for seconds never looks stuck; a quick run says nothing.
export const NOTICE_AFTER_MS = 1000;

/** The line a wait of `what` gets on stderr once it has lasted `NOTICE_AFTER_MS`. */
export const noticeLine = (what: string) => `smoke: waiting for ${what}`;

/** `work` itself; `say(noticeLine(what))` once, should it not have settled within `afterMs`. */
export function noticeIfSlow<T>(
  work: Promise<T>,
  what: string,
  say: (line: string) => void,
  afterMs = NOTICE_AFTER_MS,
): Promise<T> {
  const timer = setTimeout(() => say(noticeLine(what)), afterMs);
  return work.finally(() => clearTimeout(timer));
}
