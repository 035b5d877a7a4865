// Test helper: a new page of the status tests, 1280×800, whose console errors and warnings, uncaught exceptions and
// failed requests (and, if asked, HTTP answers of 400 or more) are pushed to `problems` for the test to assert on.
import type { Browser, Page } from 'puppeteer-core';

export async function openWatchedPage(
  browser: Browser,
  problems: string[],
  { httpErrors = false }: { httpErrors?: boolean } = {},
): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warn') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${String(error)}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  if (httpErrors) {
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    });
  }
  return page;
}

/** The page box of the first element matching `selector`, read in one evaluation: the page's refresh replaces its
 * panels, so a handle taken in one call may be detached (a zero box) by the next. Throws when nothing is shown. */
export async function pageBoxOf(
  page: Page,
  selector: string,
): Promise<{ x: number; y: number; width: number; height: number }> {
  const box = await page.evaluate((s) => {
    const rect = document.querySelector(s)?.getBoundingClientRect();
    return (
      rect && { x: rect.left + window.scrollX, y: rect.top + window.scrollY, width: rect.width, height: rect.height }
    );
  }, selector);
  if (!box || box.width <= 0 || box.height <= 0) throw new Error(`${selector} is not shown: ${JSON.stringify(box)}`);
  return box;
}
