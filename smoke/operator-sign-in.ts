// Signs the LOAD probe's tab in as an operator (--operator-token-file), so it loads the status page's operator
// view: the token is typed into the sign-in form and goes nowhere else (no URL, line, report or screenshot).
import type { Page } from 'puppeteer-core';

/** The frontend's session cookie (frontend/operator-access.ts): present once the sign-in succeeded. */
const SESSION_COOKIE = '__Host-operator';

/** Null when signed in; otherwise why not, in one line that never holds the token. */
export async function signInOperator(
  page: Page,
  frontend: string,
  token: string,
  timeout: number,
): Promise<string | null> {
  const at = new URL('/sign-in', frontend).href;
  const form = await page.goto(at, { waitUntil: 'load', timeout });
  if (form?.status() !== 200) {
    const why = form?.status() === 403 ? ': it signs in only over HTTPS' : '';
    return `operator sign-in: ${at} answered HTTP ${form?.status() ?? 'nothing'}${why}`;
  }
  if (!(await page.$('#token'))) return `operator sign-in: ${at} shows no token field`;
  await page.type('#token', token);
  const [answer] = await Promise.all([
    page.waitForNavigation({ waitUntil: 'load', timeout }),
    page.click('form.sign-in button[type=submit]'),
  ]);
  const cookies = await page.cookies(frontend);
  if (cookies.some((cookie) => cookie.name === SESSION_COOKIE)) return null;
  const status = answer?.status() ?? 'nothing';
  return `operator sign-in refused (HTTP ${status}): the token is not one of OPERATOR_TOKENS_FILE`;
}
