// The failure card's page and the last-resort placeholder: text is escaped, the PNG is well-formed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { crc32, inflateSync } from 'node:zlib';
import { cardHtml } from './failure-card.ts';
import { placeholderPng } from './placeholder-png.ts';

test('the card shows the URL, reasons, time and what arrived, with every piece of page text escaped', () => {
  const html = cardHtml({
    url: 'http://x/?a=<b>',
    reasons: ['page did not finish loading within 1500ms', 'screenshot not taken within 1500ms'],
    ms: 1507,
    timeout: 1500,
    received: {
      summary: 'HTTP 200 OK, application/json, 15 bytes of body (unfinished)',
      excerpt: '<script>alert(1)</script>',
    },
    at: new Date('2026-01-02T03:04:05Z'),
  });
  assert.not.match(html, '<script>');
  assert.match(html, '&#60;script&#62;alert(1)&#60;/script&#62;');
  assert.match(html, 'http://x/?a=&#60;b&#62;');
  assert.match(html, 'page did not finish loading within 1500ms<br>screenshot not taken within 1500ms');
  assert.match(html, '1507 ms (timeout 1500 ms)');
  assert.match(html, 'HTTP 200 OK, application/json, 15 bytes of body (unfinished)');
  assert.match(html, '2026-01-02T03:04:05.000Z');
  assert.match(html, 'not be painted');
});

test('server text on the card shows its control and bidi characters as escapes; the body keeps its lines', () => {
  const html = cardHtml({
    url: 'http://x/',
    reasons: ['HTTP 500 \u202Eliaf\u001B[2K'],
    ms: 10,
    timeout: 1500,
    received: { summary: 'HTTP 500 \u202Eliaf', excerpt: 'a\u2066\nb' },
    at: new Date('2026-01-02T03:04:05Z'),
  });
  assert.not.match(html, /[\u202E\u2066\u001B]/);
  assert.match(html, 'HTTP 500 \\u202eliaf\\x1b[2K');
  assert.match(html, '<pre>a\\u2066\nb</pre>');
});

test('the card shows the URL and the reasons with *** for their credentials', () => {
  const html = cardHtml({
    url: 'http://ci:S3cret@x/?access_token=T0k',
    reasons: ['redirected elsewhere: HTTP 302 to http://ci:S3cret@y/'],
    ms: 10,
    timeout: 1500,
    received: { summary: 'no response' },
    at: new Date('2026-01-02T03:04:05Z'),
  });
  assert.not.match(html, /S3cret|T0k/);
  assert.match(html, 'http://ci:***@x/?access_token=***');
  assert.match(html, 'redirected elsewhere: HTTP 302 to http://ci:***@y/');
});

test('the placeholder is a valid 320×200 greyscale PNG: signature, chunk CRCs, and the pixel rows', () => {
  const png = placeholderPng();
  assert.equal([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('latin1');
    const data = png.subarray(at + 8, at + 8 + length);
    assert.is(png.readUInt32BE(at + 8 + length), crc32(png.subarray(at + 4, at + 8 + length)), `${type} CRC`);
    chunks.push({ type, data });
    at += 12 + length;
  }
  assert.equal(
    chunks.map((c) => c.type),
    ['IHDR', 'IDAT', 'IEND'],
  );
  const header = chunks[0]!.data;
  assert.equal([header.readUInt32BE(0), header.readUInt32BE(4), header[8], header[9]], [320, 200, 8, 0]);
  assert.is(inflateSync(chunks[1]!.data).length, 200 * (1 + 320));
});

test.run();
