// Test support: the one log sink. `collectLines()` is a stream that keeps every line written to it (pino's sink()
// pattern); `createLogSink()` puts a production (JSON) logger on it and parses what it writes.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../lib/logger.ts';

/** A writable stream that keeps every non-empty line written to it, in order. */
export function collectLines(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

export interface LogSink {
  log: Logger;
  /** Every line written so far, parsed. */
  entries: Array<Record<string, any>>;
  /** The entries whose `msg` contains `text`. */
  find(text: string): Array<Record<string, any>>;
}

export function createLogSink(level = 'debug', name = 'device'): LogSink {
  const entries: Array<Record<string, any>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) entries.push(JSON.parse(line));
      done();
    },
  });
  const log = createLogger({ name, environment: 'production', level, stream });
  return { log, entries, find: (text) => entries.filter((entry) => String(entry.msg).includes(text)) };
}
