// What a client gets when Node's parser gives up on its request: a chunk size that is no number, a body cut off before
// its last chunk or its Content-Length, a head or a request not whole in time (lib/serve.ts's limits). Node's own
// answer is a bare status with no body; this one adds a line saying why, as every other refusal of the frontend does.
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

const ANSWERS = new Map<string | undefined, [status: string, line: string]>(
  Object.entries({
    ERR_HTTP_REQUEST_TIMEOUT: ['408 Request Timeout', 'the request did not arrive whole in time.'],
    HPE_HEADER_OVERFLOW: ['431 Request Header Fields Too Large', 'the request head is too large.'],
    HPE_CHUNK_EXTENSIONS_OVERFLOW: ['413 Payload Too Large', 'the chunk extensions are too large.'],
    HPE_INVALID_EOF_STATE: ['400 Bad Request', 'the connection ended before the request was complete.'],
  }),
);
const BAD_REQUEST: [string, string] = ['400 Bad Request', 'the request is not well-formed HTTP/1.1'];

/** The raw answer for a parser error: one text line, the parser's code named (never the client's bytes). */
export function clientErrorAnswer(code: string | undefined): string {
  const [status, why] = ANSWERS.get(code) ?? [BAD_REQUEST[0], `${BAD_REQUEST[1]} (${code ?? 'unknown'}).`];
  const body = `Request refused: ${why}\n`;
  return (
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`
  );
}

type Socket = Duplex & { _httpMessage?: { headersSent?: boolean } | null };

/** Node's default clientError handling with a line in the body: no answer once a response has begun. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code !== 'ECONNRESET' && socket.writable && !socket._httpMessage?.headersSent)
      socket.write(clientErrorAnswer(error.code));
    socket.destroy();
  });
}
