// Loading the page under test. Puppeteer's goto() resolves with no response when the page it loaded moves on at
// once (a meta refresh of 0 s): 1 of 6 such loads on a loaded machine failed as "no response for the page" although
// the page had answered 200. The first document the main frame was answered with (past redirects) stands in then.
import type { HTTPResponse, Page } from 'puppeteer-core';

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
