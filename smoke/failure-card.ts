// A picture for a LOAD failure Chromium could not paint: a card with the URL, the reason, the time and what arrived.
import type { Browser } from 'puppeteer-core';
import { redactUrl, redactUrlsIn } from '../lib/redact-url.ts';
import { withDeadline } from '../lib/with-deadline.ts';
import type { Receipt } from './document-receipt.ts';
import { bounded, capturePng } from './page-capture.ts';
import { terminalText } from './terminal-text.ts';

export interface CardFacts {
  url: string;
  reasons: string[];
  ms: number;
  timeout: number;
  received: Receipt;
  at: Date;
}

const VIEWPORT = { width: 1280, height: 800 };

/** Draws the card in a fresh tab and writes it to `path`; null, or why it could not be drawn (within `ms`). */
export async function writeFailureCard(
  browser: Browser,
  path: string,
  facts: CardFacts,
  ms: number,
): Promise<string | null> {
  let gaveUp = false; // then a placeholder takes the card's place, and a late capture must not overwrite it
  const drawn = (async () => {
    const page = await browser.newPage();
    try {
      await page.setViewport(VIEWPORT);
      await page.setContent(cardHtml(facts), { waitUntil: 'load', timeout: ms });
      await capturePng(page, path, () => !gaveUp);
      return null;
    } finally {
      void bounded(page.close(), 1000);
    }
  })().catch((error: Error) => `failure card not drawn: ${error.message.split('\n')[0]}`);
  // `drawn` answers every failure with its reason: only the deadline is left to say.
  return withDeadline(drawn, ms, { what: 'failure card', onExpiry: () => (gaveUp = true) }).catch(
    () => `failure card not drawn within ${ms}ms`,
  );
}

// Server text (reasons, the status line) is shown with its control and bidi characters as escapes, as on the
// terminal (terminal-text.ts), so it cannot reorder what the card says; then as HTML text.
const esc = (text: string) => terminalText(text).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function cardHtml({ url, reasons, ms, timeout, received, at }: CardFacts): string {
  const row = (name: string, value: string) => `<tr><th>${name}</th><td>${value}</td></tr>`;
  const excerpt = received.excerpt?.split('\n').map(esc).join('\n'); // the body's own lines stay lines
  const body = excerpt === undefined ? '' : `<pre>${excerpt || '<i>(empty)</i>'}</pre>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>smoke: LOAD failed</title><style>
body { margin: 0; background: #f3f4f6; font: 18px/1.45 system-ui, sans-serif; color: #111827; }
.card {
  margin: 48px auto; width: 1100px; background: #fff; border-left: 12px solid #b91c1c; border-radius: 6px;
  padding: 28px 36px; box-shadow: 0 2px 8px #0002;
}
h1 { margin: 0 0 4px; font-size: 30px; color: #b91c1c; }
.note { margin: 0 0 22px; color: #4b5563; }
table { border-collapse: collapse; width: 100%; }
th { text-align: left; vertical-align: top; width: 150px; padding: 7px 12px 7px 0; color: #4b5563; font-weight: 600; }
td { padding: 7px 0; word-break: break-all; }
pre {
  margin: 8px 0 0; padding: 12px; max-height: 220px; overflow: hidden; background: #f9fafb; border: 1px solid #e5e7eb;
  font: 15px/1.4 ui-monospace, monospace; white-space: pre-wrap; word-break: break-all;
}
</style></head><body><div class="card">
<h1>LOAD failed: the page could not be painted</h1>
<p class="note">A failure card drawn by the smoke CLI in a fresh tab, standing in for a screenshot of the page.</p>
<table>
${row('URL', esc(redactUrl(url)))}
${row('Reason', reasons.map((reason) => esc(redactUrlsIn(reason))).join('<br>'))}
${row('Elapsed', `${ms} ms (timeout ${timeout} ms)`)}
${row('Received', `${esc(received.summary)}${body}`)}
${row('At', esc(at.toISOString()))}
</table></div></body></html>`;
}
