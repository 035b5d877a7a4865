// The benchmark's baseline: launch the same Chromium with the same flags, load one page, screenshot it, close.
// Usage: node --import tsx test/support/bare-screenshot.ts <url> <file.png>
import puppeteer from 'puppeteer-core';
import { chromiumArgs, findChromium, headlessMode } from '../../smoke/browser.ts';

const [url, file] = process.argv.slice(2);
const executablePath = findChromium();
const headless = headlessMode(executablePath);
const browser = await puppeteer.launch({ executablePath, headless, args: chromiumArgs() });
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(url!, { waitUntil: 'load', timeout: 10_000 });
  await page.screenshot({ path: file as `${string}.png` });
} finally {
  await browser.close();
}
