// Keeps a serial port open: reads lines from it, pushes its state into readiness, reopens it when it returns.
import type { SerialPort, SerialPortMock } from 'serialport';
import { DEVICE_VALUE_MAX_BYTES } from '../../lib/device-protocol.ts';
import type { Logger } from '../../lib/logger.ts';
import { createSummedWarning } from '../../lib/summed-warning.ts';
import { createLineSplitter } from './line-splitter.ts';
import { createBackoff, type Backoff } from '../../lib/backoff.ts';
import { watchDevice } from './device-watch.ts';

/** A real port, or the emulator's mock port: both are serialport streams, so both take the same path. */
export type Port = SerialPort | SerialPortMock;

interface SerialLinkOptions {
  /** Builds a new, unopened port for each attempt (`autoOpen: false`). */
  createPort: () => Port;
  /** Shown in logs. */
  path: string;
  /** The readiness state while the port is open: `connected`, or `emulator` in local mode. */
  openState: string;
  /** The port's state, with why it changed (the readiness check's reason). */
  onState: (state: string, reason?: string) => void;
  /**
   * Called with each line read (CR, LF or CRLF ends one), without its line ending; blank lines are skipped, and so
   * are lines over `maxLineBytes`, dropped as they arrive with a summed warning.
   */
  onLine: (line: string) => void;
  /**
   * DEVICE_VALUE_MAX_BYTES: the backend refuses a longer value, so dropping it here spares the spool and the socket.
   * Escaped (a control character costs 6 bytes), even the longest fits a frame alone.
   */
  maxLineBytes?: number;
  /** Over-long lines after the first are summed into one warning per interval. */
  warnIntervalMs?: number;
  /** Called for each over-long line dropped (the metrics count them). */
  onOverlong?: () => void;
  log: Logger;
  backoff?: Backoff;
  /**
   * Names the device now at `path` (undefined when there is none). While the port is open it is asked every
   * `watchMs`, so that a vanished or replaced device is noticed (device-watch.ts says why serialport alone misses it).
   */
  identify?: (path: string) => string | undefined;
  watchMs?: number;
}

export interface SerialLink {
  start(): void;
  /** Stops retrying and closes the port. */
  close(): Promise<void>;
}

export function createSerialLink({
  createPort,
  path,
  openState,
  onState,
  onLine,
  log,
  backoff = createBackoff(),
  identify,
  watchMs = 250,
  maxLineBytes = DEVICE_VALUE_MAX_BYTES,
  warnIntervalMs = 5000,
  onOverlong,
}: SerialLinkOptions): SerialLink {
  let current: Port | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  /** Stops the identity watch of the port now open. */
  let stopWatch: (() => void) | undefined;
  let closing = false;
  /** Set when an open port is lost, so the reopen can say how long it was away. */
  let downSince: number | undefined;
  const overlong = overlongLines({ log, maxLineBytes, intervalMs: warnIntervalMs, onOverlong });

  function retry(reason: string) {
    const delayMs = backoff.next();
    // The first failure is news; the retries after it are not, until the port comes back.
    const level = backoff.attempts === 1 ? 'warn' : 'debug';
    log[level](
      { path, reason, retryInMs: delayMs, attempt: backoff.attempts },
      `serial port ${path} unavailable: ${reason}; retrying`,
    );
    retryTimer = setTimeout(attempt, delayMs);
  }

  /** Marks the port lost at once and retries; the port's own close event is then ignored. */
  function lose(port: Port, reason: string) {
    if (current !== port) return;
    current = undefined;
    stopWatch?.();
    downSince = performance.now();
    onState('disconnected', reason);
    if (!closing) retry(reason);
    if (port.isOpen) port.close(() => {}); // closing the descriptor also ends serialport's spinning read
  }

  function attempt() {
    retryTimer = undefined;
    if (closing) return;
    const port = createPort();
    current = port;
    const splitter = createLineSplitter({ maxBytes: maxLineBytes, onLine, onOverlong: overlong.note });
    port.on('data', (chunk: Buffer) => splitter.push(chunk));
    // Without a listener an 'error' event would crash the process; close/open callbacks carry the real news.
    port.on('error', (error) => log.debug({ path, err: error }, 'serial port error'));
    // A vanished device (USB unplugged, pty far end gone) surfaces as a failed read, which serialport turns
    // into 'close' with a DisconnectedError: that is the moment readiness must change.
    port.on('close', function portClosed(error: (Error & { disconnected?: boolean }) | null) {
      lose(port, error?.disconnected ? `disconnected (${error.message})` : 'closed');
    });
    port.open(function opened(error) {
      if (error) {
        if (current === port) current = undefined;
        if (!closing) retry(error.message);
        return;
      }
      if (closing) {
        port.close();
        return;
      }
      const attempts = backoff.attempts;
      backoff.reset();
      stopWatch?.();
      stopWatch = identify && watchDevice({ path, identify, watchMs, onChange: (reason) => lose(port, reason) });
      onState(openState, `${path} open`);
      const downMs = downSince === undefined ? undefined : Math.round(performance.now() - downSince);
      downSince = undefined;
      log.info({ path, attempts, downMs }, `serial port ${path} open`);
    });
  }

  return {
    start() {
      closing = false;
      attempt();
    },
    async close() {
      closing = true;
      clearTimeout(retryTimer);
      stopWatch?.();
      overlong.flush();
      const port = current;
      // Forgotten first, so that the port's own 'close' event (which may come after the callback) reports nothing:
      // after close() the link says 'disconnected' once, here, and never again.
      current = undefined;
      if (port?.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
      onState('disconnected');
    },
  };
}

/** Over-long lines dropped: the first warned at once, the rest summed per interval, each counted by `onOverlong`. */
function overlongLines({
  log,
  maxLineBytes,
  intervalMs,
  onOverlong,
}: {
  log: Logger;
  maxLineBytes: number;
  intervalMs: number;
  onOverlong: (() => void) | undefined;
}) {
  const warning = createSummedWarning(
    log,
    (n) => `dropped ${n} serial line${n === 1 ? '' : 's'} longer than ${maxLineBytes} bytes`,
    { intervalMs },
  );
  return {
    note(start: Buffer) {
      warning.note({ limit: maxLineBytes, start: start.toString('utf8') });
      onOverlong?.();
    },
    flush: () => warning.flush(),
  };
}
