// Test support: accessibility checks run inside a page: names, headings, ids, words beside colour, and contrast.
import { readFileSync } from 'node:fs';
import type { Page } from 'puppeteer-core';

// Plain JavaScript kept out of the TypeScript loader, whose helpers (`__name`) do not exist in the page.
const IN_PAGE = readFileSync(new URL('./page-audit-in-page.js', import.meta.url), 'utf8');

/**
 * Problems found on the page as it is now, one line each; empty when it passes. It checks what this project's
 * pages promise: every graphic is hidden or named, every section and card is named, headings do not skip a
 * level, ids are unique, every coloured state carries words, and text has WCAG AA contrast (4.5:1, or 3:1 for
 * large text) against the background it is drawn on.
 */
export function auditPage(page: Page): Promise<string[]> {
  return page.evaluate(IN_PAGE) as Promise<string[]>;
}

/** auditPage in the light colour scheme, then in the dark; the page is left in the light one. */
export async function auditBothSchemes(page: Page): Promise<{ light: string[]; dark: string[] }> {
  const light = await auditPage(page);
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
  try {
    return { light, dark: await auditPage(page) };
  } finally {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
  }
}
