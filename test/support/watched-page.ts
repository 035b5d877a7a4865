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
