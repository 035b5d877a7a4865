// The logger factory: JSON lines in production (and any unknown NODE_ENV), coloured text in `local`.
import { createRequire } from 'node:module';
import { pino, destination, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import type { PrettyOptions } from 'pino-pretty';
import { ConfigError } from './config-error.ts';
import { redactUrl } from './redact-url.ts';

export type { Logger };

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

export interface LoggerOptions {
  name: string;
  environment: string;
  /** LOG_LEVEL; defaults to `info`. */
  level?: string;
  /** Where lines go; stdout unless a test collects them. */
  stream?: DestinationStream;
  /** Local mode only: colour the text (off with NO_COLOR). Defaults to true. */
  color?: boolean;
  /** Local mode only: each entry on one line (LOG_SINGLE_LINE=1). Defaults to false. */
  singleLine?: boolean;
}

/** How local mode's text looks, read from the environment a service's main.ts passes in. */
export function readLogDisplay(env: NodeJS.ProcessEnv): Pick<LoggerOptions, 'color' | 'singleLine'> {
  return { color: !env.NO_COLOR, singleLine: env.LOG_SINGLE_LINE === '1' };
}

export function createLogger(options: LoggerOptions): Logger {
  const { name, environment, level = 'info', stream, color = true, singleLine = false } = options;
  if (!LEVELS.has(level)) {
    throw new ConfigError(`LOG_LEVEL=${level} is not valid: expected one of ${[...LEVELS].join(', ')}`);
  }
  // Any `url` field is redacted on its way out (the device's socket lines carry BACKEND_URL's): no line can leak it.
  // `req.url` too: a request line may be absolute-form with credentials (`GET http://u:p@x/metrics`).
  const redact = (url: unknown) => (typeof url === 'string' ? redactUrl(url) : url);
  const serializers = {
    url: redact,
    req: (req: unknown) =>
      req && typeof req === 'object' && 'url' in req ? { ...req, url: redact((req as { url: unknown }).url) } : req,
  };
  const settings = { name, level: level as LevelWithSilent, base: { pid: process.pid }, serializers };
  if (environment === 'local') {
    // Synchronous in-process pretty printing: no worker thread, nothing lost at exit. LOG_SINGLE_LINE=1 (set
    // by `npm start`, which prefixes each line with the service's name) keeps each entry on one line.
    return pino(settings, prettyOnFirstLine({ colorize: color, singleLine, destination: stream ?? 1, sync: true }));
  }
  // Synchronous stdout: the last lines before exit are neither lost nor reordered.
  return pino(settings, stream ?? destination({ dest: 1, sync: true }));
}

/**
 * pino-pretty's stream, loaded when the first line is written: its module tree costs a thread 150–300 ms to load,
 * and the backend's device thread, which builds a logger as it starts, may log nothing for a long while. In
 * production it is never loaded.
 */
function prettyOnFirstLine(options: PrettyOptions): DestinationStream {
  let stream: DestinationStream | undefined;
  const load = () =>
    (createRequire(import.meta.url)('pino-pretty') as (o: PrettyOptions) => DestinationStream)(options);
  return { write: (line) => (stream ??= load()).write(line) };
}
