// Test helper: a production (JSON) logger whose lines are collected and parsed, pino's sink() pattern.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../lib/logger.ts';

export interface LogSink {
  log: Logger;
  /** Every line written so far, parsed. */
  entries: Array<Record<string, any>>;
  /** The entries whose `msg` contains `text`. */
  find(text: string): Array<Record<string, any>>;
}

export function createLogSink(level = 'debug'): LogSink {
  const entries: Array<Record<string, any>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) entries.push(JSON.parse(line));
      done();
    },
  });
  const log = createLogger({ name: 'device', environment: 'production', level, stream });
  return { log, entries, find: (text) => entries.filter((entry) => String(entry.msg).includes(text)) };
}
