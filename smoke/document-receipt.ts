// What the browser received for the page's own document: status line, type, body bytes, and the body's first bytes.
import type { CDPSession, Page } from 'puppeteer-core';

export interface Receipt {
  /** Said in a few words: `HTTP 200 OK, application/json, 15 bytes of body (unfinished)`, or `nothing`. */
  summary: string;
  /** The first bytes of the body as text, when they could be read. */
  excerpt?: string;
}

const EXCERPT_BYTES = 600;

/**
 * Starts watching before the navigation. A session of our own, because puppeteer does not expose the raw network
 * events; `receipt()` reads what arrived so far, even from a response whose body never ends.
 */
export async function watchDocument(page: Page) {
  const session: CDPSession = await page.createCDPSession();
  await session.send('Network.enable');
  let requestId: string | undefined;
  let head: string | undefined;
  let bytes = 0;
  let finished = false;
  session.on('Network.responseReceived', (event) => {
    if (event.type !== 'Document' || requestId) return;
    requestId = event.requestId;
    const { status, statusText, mimeType } = event.response;
    head = `HTTP ${status}${statusText ? ` ${statusText}` : ''}${mimeType ? `, ${mimeType}` : ''}`;
  });
  session.on('Network.dataReceived', (event) => void (event.requestId === requestId && (bytes += event.dataLength)));
  session.on('Network.loadingFinished', (event) => void (event.requestId === requestId && (finished = true)));
  return {
    async receipt(): Promise<Receipt> {
      if (!head || !requestId) return { summary: 'nothing: no response headers arrived' };
      const summary = `${head}, ${bytes} byte${bytes === 1 ? '' : 's'} of body${finished ? '' : ' (unfinished)'}`;
      const excerpt = await readSoFar(session, requestId);
      return excerpt === undefined ? { summary } : { summary, excerpt };
    },
    detach: () => session.detach().catch(() => {}),
  };
}

// Network.streamResourceContent hands over the body received so far, also for an unfinished response.
async function readSoFar(session: CDPSession, requestId: string): Promise<string | undefined> {
  try {
    const { bufferedData } = await session.send('Network.streamResourceContent', { requestId });
    const text = Buffer.from(bufferedData, 'base64').subarray(0, EXCERPT_BYTES).toString('utf8');
    return text.replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '\uFFFD');
  } catch {
    return undefined; // an older Chromium, or nothing buffered: the summary still says what arrived
  }
}
