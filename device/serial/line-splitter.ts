// Cuts serial bytes into lines: CR and LF each end one (so CRLF ends a line and an empty one, skipped as every blank
// line is). A line over the value limit is discarded as its bytes arrive, so input without a line end costs memory
// up to the limit and time linear in its length.

interface LineSplitterOptions {
  /** The longest line kept, in UTF-8 bytes; a longer one is dropped whole. */
  maxBytes: number;
  /** A line, decoded as UTF-8, without its ending; blank lines are not passed on. */
  onLine: (line: string) => void;
  /** A line passed `maxBytes`: called once per such line, when it does, with its first bytes (at most 100). */
  onOverlong: (start: Buffer) => void;
}

interface LineSplitter {
  /** Takes the next bytes read. */
  push(chunk: Buffer): void;
}

const LF = 0x0a;
const CR = 0x0d;

export function createLineSplitter({ maxBytes, onLine, onOverlong }: LineSplitterOptions): LineSplitter {
  /** The line being read, or null once it is over the limit: its bytes are then dropped until its end. */
  let parts: Buffer[] | null = [];
  let held = 0;

  function take(bytes: Buffer) {
    if (parts === null) return;
    if (held + bytes.length > maxBytes) {
      onOverlong(Buffer.concat([...parts, bytes]).subarray(0, 100));
      parts = null;
      return;
    }
    parts.push(bytes);
    held += bytes.length;
  }

  function endLine() {
    if (parts !== null && held > 0) onLine(Buffer.concat(parts).toString('utf8'));
    parts = [];
    held = 0;
  }

  return {
    push(chunk) {
      let start = 0;
      // The next LF and the next CR at or after `start`, each searched again only once passed: linear in the chunk.
      let lf = chunk.indexOf(LF);
      let cr = chunk.indexOf(CR);
      while (lf !== -1 || cr !== -1) {
        const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
        take(chunk.subarray(start, end));
        endLine();
        start = end + 1;
        if (end === lf) lf = chunk.indexOf(LF, start);
        else cr = chunk.indexOf(CR, start);
      }
      take(chunk.subarray(start));
    },
  };
}
