import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clientErrorAnswer } from './client-errors.ts';

const parse = (raw: string) => {
  const [head, body] = raw.split('\r\n\r\n') as [string, string];
  const [status, ...fields] = head.split('\r\n');
  const headers = Object.fromEntries(fields.map((f) => f.split(': ') as [string, string]));
  return { status, headers, body };
};

test('a parser error: its status, one line naming why, the length of that line, and the connection closed', () => {
  const cases: [string | undefined, string, string][] = [
    ['HPE_INVALID_CHUNK_SIZE', '400 Bad Request', 'the request is not well-formed HTTP/1.1 (HPE_INVALID_CHUNK_SIZE).'],
    ['HPE_INVALID_EOF_STATE', '400 Bad Request', 'the connection ended before the request was complete.'],
    ['ERR_HTTP_REQUEST_TIMEOUT', '408 Request Timeout', 'the request did not arrive whole in time.'],
    ['HPE_HEADER_OVERFLOW', '431 Request Header Fields Too Large', 'the request head is too large.'],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', '413 Payload Too Large', 'the chunk extensions are too large.'],
    [undefined, '400 Bad Request', 'the request is not well-formed HTTP/1.1 (unknown).'],
  ];
  for (const [code, status, why] of cases) {
    const answer = parse(clientErrorAnswer(code));
    assert.is(answer.status, `HTTP/1.1 ${status}`, String(code));
    assert.is(answer.body, `Request refused: ${why}\n`);
    assert.equal(answer.headers, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(answer.body)),
      'Cache-Control': 'no-store',
      Connection: 'close',
    });
  }
});

test('a code that is not a parser one, such as toString, is a plain 400', () => {
  assert.match(clientErrorAnswer('toString'), /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\(toString\)\.\n$/);
});

test.run();
