// Cuts serial bytes into lines: CR, LF and CRLF each end one. A line over the value limit is discarded as its bytes
// arrive, so input without a line end costs memory up to the limit and time linear in its length.

interface LineSplitterOptions {
  /** The longest line kept, in UTF-8 bytes; a longer one is dropped whole. */
  maxBytes: number;
  /** A line, decoded as UTF-8, without its ending; blank lines are not passed on. */
  onLine: (line: string) => void;
  /** A line passed `maxBytes`: called once per such line, when it does, with its first bytes. */
  onOverlong: (start: Buffer) => void;
}

interface LineSplitter {
  /** Takes the next bytes read. */
  push(chunk: Buffer): void;
}

const LF = 0x0a;
const CR = 0x0d;

export function createLineSplitter({ maxBytes, onLine, onOverlong }: LineSplitterOptions): LineSplitter {
  let parts: Buffer[] = [];
  let held = 0;
  /** The line being read is over the limit: its bytes are dropped until its end. */
  let discarding = false;
  /** The last byte was a CR: an LF right after it ends nothing (CRLF is one line end). */
  let afterCr = false;

  /** Adds `bytes` to the line being read, or drops them once the line is over the limit. */
  function take(bytes: Buffer) {
    if (bytes.length === 0 || discarding) return;
    if (held + bytes.length > maxBytes) {
      discarding = true;
      onOverlong(Buffer.concat([...parts, bytes]).subarray(0, 100));
      parts = [];
      held = 0;
      return;
    }
    parts.push(bytes);
    held += bytes.length;
  }

  function endLine() {
    const line = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const wasDiscarding = discarding;
    parts = [];
    held = 0;
    discarding = false;
    if (!wasDiscarding && line.length > 0) onLine(line.toString('utf8'));
  }

  return {
    push(chunk) {
      let start = 0;
      if (afterCr && chunk[0] === LF) start = 1;
      afterCr = false;
      let nextLf = chunk.indexOf(LF, start);
      let nextCr = chunk.indexOf(CR, start);
      while (nextLf !== -1 || nextCr !== -1) {
        const end = nextCr === -1 || (nextLf !== -1 && nextLf < nextCr) ? nextLf : nextCr;
        take(chunk.subarray(start, end));
        endLine();
        start = end + 1;
        if (chunk[end] === CR) {
          if (start === chunk.length) afterCr = true;
          else if (chunk[start] === LF) start += 1;
        }
        if (nextLf !== -1 && nextLf < start) nextLf = chunk.indexOf(LF, start);
        if (nextCr !== -1 && nextCr < start) nextCr = chunk.indexOf(CR, start);
      }
      take(chunk.subarray(start));
    },
  };
}
