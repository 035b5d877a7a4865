// The LOAD probe in real Chromium against healthy pages that move on to another page right after loading, and a
// page taller than the viewport, captured whole, and a page whose certificate Chromium does not trust.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { loadProbe } from './load-probe.ts';
import { createFixtureHandler } from '../test/support/fake-http-server.ts';
import { listen, type Listening } from '../test/support/listen.ts';
import { PNG_SIGNATURE } from '../test/support/run-smoke-cli.ts';
import { createTestCa } from '../test/support/test-ca.ts';

const dir = mkdtempSync(join(tmpdir(), 'smoke-load-probe-test-'));
const fx: Listening = await listen(createFixtureHandler());
const launched: LaunchedBrowser = await launchBrowser();

test.after(async () => {
  await launched.close();
  await fx.close();
  rmSync(dir, { recursive: true, force: true });
});

// A capture that spanned the switch of documents used to go unanswered until the screenshot's bound: 5 of 6
// meta-refresh loads and 1 of 6 location.replace() loads failed so. Six loads each make a regression show.
const RUNS = 6;

for (const [what, path] of [
  ['a meta refresh to a good page', 'meta-refresh'],
  ['location.replace() to a good page 50 ms after load', 'replaces-itself'],
] as const) {
  test(`${what}: PASS with frontend-ok.png, ${RUNS} loads of ${RUNS}`, async () => {
    const failed: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const artifacts = join(dir, `${path}-${i}`);
      const attempt = await loadProbe(launched.browser, {
        url: `${fx.url}/${path}/`,
        timeout: 5000,
        artifacts: mkdtempSync(`${artifacts}-`),
        strict: true,
      });
      const shot = attempt.screenshot ?? 'none';
      const picture = existsSync(shot) ? readFileSync(shot).subarray(0, 8) : Buffer.alloc(0);
      if (!attempt.ok || !shot.endsWith('/frontend-ok.png') || !picture.equals(PNG_SIGNATURE)) {
        failed.push(`load ${i + 1}: ${attempt.ok ? 'PASS' : 'FAIL'} ${shot} ${attempt.reasons.join('; ')}`);
      }
      assert.equal(attempt.issues, [], 'no page issues (the run is --strict)');
    }
    assert.equal(failed, [], `${failed.length} of ${RUNS} loads failed`);
  });
}

test('a page taller than the 1280×800 viewport: the screenshot holds all of it', async () => {
  const tall = await listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><link rel="icon" href="data:,"><body style="margin:0"><div style="height:3000px">up</div>');
  });
  try {
    const attempt = await loadProbe(launched.browser, {
      url: tall.url,
      timeout: 5000,
      artifacts: mkdtempSync(join(dir, 'tall-')),
      strict: true,
    });
    assert.ok(attempt.ok, attempt.reasons.join('; '));
    const png = readFileSync(attempt.screenshot!);
    // A PNG's IHDR chunk holds its width and height, big-endian, at bytes 16 and 20.
    assert.equal({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }, { width: 1280, height: 3000 });
  } finally {
    await tall.close();
  }
});

test('a certificate Chromium does not trust: a reason with the way out (--ca-file), and no stack trace', async () => {
  const ca = createTestCa('a CA Chromium never heard of');
  const { cert, key } = ca.issue('page');
  const page = await listen(createHttpsServer({ cert, key }, (_req, res) => res.end('<h1>up</h1>')));
  try {
    const url = `https://127.0.0.1:${page.port}/`;
    const attempt = await loadProbe(launched.browser, {
      url,
      timeout: 5000,
      artifacts: mkdtempSync(join(dir, 'cert-')),
      strict: false,
    });
    assert.equal(attempt.reasons, [
      `net::ERR_CERT_AUTHORITY_INVALID at ${url}: the page's certificate is not trusted here ` +
        '(give the CA that signed it with --ca-file or SMOKE_CA_FILE)',
    ]);
    assert.is(attempt.stack, undefined, 'a known condition, not a crash');
    assert.ok(attempt.screenshot?.endsWith('/frontend-error.png'), String(attempt.screenshot));
  } finally {
    await page.close();
    ca.remove();
  }
});

test.run();
