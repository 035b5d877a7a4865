// The device hub on a thread of its own (device-worker.ts). With 500 devices streaming, parsing their frames,
// serializing readings to BSON and driving the MongoDB client kept the main thread busy, and /api/ready waited behind
// that work and its garbage collections. Now the main thread only holds the sockets: it checks each upgrade at the
// gate, hands each socket's events to the device thread and does to the socket what the device thread says (send an
// ack, close, pause). Should the thread stop, its sockets are closed with 1013 (the devices resend after they
// reconnect) and a new thread is started.
import { upgradeWebSocket } from '@hono/node-server';
import type { Logger } from '../../lib/logger.ts';
import { CLOSE_TRY_AGAIN_LATER, DEVICE_MESSAGE_RATE } from '../../lib/device-protocol.ts';
import type { DeviceRoutes } from '../device-socket/device-hub.ts';
import { createUpgradeGate, type UpgradeGateOptions } from '../device-socket/device-upgrade-gate.ts';
import type { BackendMetrics } from './backend-metrics.ts';
import {
  isSocketCommand,
  type DeviceWorkerData,
  type FromDeviceThread,
  type SocketEvent,
  type ToDeviceThread,
} from './device-thread-messages.ts';
import { createSocketRelay } from './device-relay.ts';
import { keepThread, type KeptThread } from './kept-thread.ts';
import { watchDevicePath, type DevicePathState } from './device-path.ts';
import { holdUntilReady } from './held-events.ts';
import { watchThreadAnswers } from './thread-answers.ts';
import { watchBursts } from './burst-collect.ts';
import { fullGc } from './full-gc.ts';

/** The device thread's nice value above the process's: when both want the CPU, the probes' thread gets it first. */
export const DEVICE_THREAD_NICE = 10;
const ENTRY = new URL('./device-worker-entry.mjs', import.meta.url);

export interface DeviceThread extends DeviceRoutes {
  /** The database monitor's verdict: while disconnected the device thread's writes fail at once, as the main's do. */
  setConnected(connected: boolean): void;
  /** Closes the device thread's client and ends the thread (after closeAll). */
  stop(): Promise<void>;
  /** Settles once the first device thread is ready; rejects, in one line, when it could not start. */
  started: Promise<void>;
}

export interface DeviceThreadOptions
  extends Omit<DeviceWorkerData, 'nice' | 'metrics'>, Omit<UpgradeGateOptions, 'log'> {
  logger: Logger;
  meters?: BackendMetrics;
  /** A reply came from MongoDB to the device thread: the database monitor counts it as a sign of life. */
  onHeard: () => void;
  nice?: number;
  /** The thread's module (a test gives one that fails). */
  entry?: URL;
  /** Whether the device path keeps up (device-path.ts): the `devices` readiness check. */
  onPath?: (state: DevicePathState, reason?: string) => void;
  /** Frames unhandled this long make the path `behind` (tests shorten it). */
  behindMs?: number;
  /** A probe unanswered this long makes the path `down` (thread-answers.ts; tests shorten it). */
  silentMs?: number;
}

/**
 * Starts the device thread and returns at once, so that the thread loads while the backend connects to its database
 * and listens. Device sockets that open before the thread is ready are held, their frames within the read budget
 * (device-relay.ts), and handed to it once it is; the `devices` check stays as the caller defined it until then.
 */
export function startDeviceThread(options: DeviceThreadOptions): DeviceThread {
  const { logger: log, meters, onHeard, nice = DEVICE_THREAD_NICE, uri, databaseName, tokens } = options;
  const gate = createUpgradeGate({ ...options, log });
  const data: DeviceWorkerData = { uri, databaseName, log: options.log, tokens, nice, metrics: meters !== undefined };
  let connected = false;
  const restarting = { code: CLOSE_TRY_AGAIN_LATER, reason: 'device thread restarting' };
  const held = holdUntilReady<SocketEvent>((event, transfer) => thread.post(event, transfer));
  // After a burst of socket events, once quiet, each thread collects its garbage once (burst-collect.ts). The main
  // thread's collection holds /api/ready meanwhile: measured, see burst-collect.ts.
  const bursts = watchBursts({
    collect() {
      thread.post({ kind: 'collect' });
      fullGc().then(
        (done) => log.debug(done, 'main thread: garbage collected after a burst of device socket events'),
        () => {}, // no inspector in this build of Node: the memory comes back as V8 sees fit, as before
      );
    },
  });
  const tell = (event: SocketEvent, transfer?: ArrayBuffer[]) => {
    bursts.event();
    return held.tell(event, transfer);
  };
  const relay = createSocketRelay(tell, log, restarting);
  // When the oldest reading waiting for a write on the device thread was received, as its last probe answer said.
  let unwrittenAt: number | undefined;
  const path = watchDevicePath({
    oldestAt: () => relay.unhandled().oldestAt,
    unwrittenAt: () => unwrittenAt,
    onState: options.onPath ?? (() => {}),
    ...(options.behindMs ? { behindMs: options.behindMs } : {}),
  });
  const answers = watchThreadAnswers({
    probe: () => thread.post({ kind: 'probe' }),
    onSilent: (ms) => path.thread(false, `the device thread has not answered for ${ms} ms: it is hung`),
    onAnswered: () => path.thread(true),
    ...(options.silentMs ? { silentMs: options.silentMs } : {}),
  });
  const thread: KeptThread<ToDeviceThread, FromDeviceThread> = keepThread(options.entry ?? ENTRY, data, onReply, {
    log,
    name: 'device thread',
    onStopped(code) {
      answers.reset();
      unwrittenAt = undefined;
      path.thread(false, `the device thread stopped (exit code ${code}); a new one is starting`);
      relay.closeAll(restarting.code, restarting.reason);
    },
    onStarted(started) {
      started.post({ kind: 'connected', connected });
      held.ready();
      answers.reset();
      path.thread(true);
    },
  });

  function onReply(reply: FromDeviceThread) {
    if (isSocketCommand(reply)) relay.act(reply);
    else if (reply.kind === 'probed') {
      unwrittenAt = reply.waitedMs === undefined ? undefined : performance.now() - reply.waitedMs;
      answers.answered();
    } else if (reply.kind === 'heard') onHeard();
    else if (reply.kind === 'counted') meters?.counted(reply.counted);
  }

  return {
    rate: DEVICE_MESSAGE_RATE,
    socketsOpen: relay.size,
    gate: gate.middleware,
    upgrade: upgradeWebSocket((c) => relay.events(c.get('remoteAddress'), c.get('deviceIdentity'))),
    events: relay.events,
    setConnected(value) {
      connected = value;
      thread.post({ kind: 'connected', connected });
    },
    async closeAll() {
      gate.flush();
      await thread.ask({ kind: 'closeAll' }, 'closedAll', 'the device sockets to close');
    },
    stop() {
      bursts.stop();
      path.stop();
      answers.stop();
      return thread.stop((last) => last.ask({ kind: 'stop' }, 'stopped', 'the device thread to stop'));
    },
    started: thread.started,
  };
}
