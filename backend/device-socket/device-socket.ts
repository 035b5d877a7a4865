// One device socket's life on the backend: a hello within the deadline that binds it to one device, then that
// device's frames handed to its writer and the writer's acks sent back, all under a message rate and a bound on
// what the peer leaves unread, and one `end()` whichever way the socket goes. A frame is counted against the rate
// when it comes and handled in a later slice (frame-slices.ts); what each means is device-dispatch.ts's decision.
import type { WSContext, WSEvents } from 'hono/ws';
import type { WebSocket } from 'ws';
import type { Logger } from '../../lib/logger.ts';
import { CLOSE_POLICY, CLOSE_TRY_AGAIN_LATER, type AckMessage, type HelloMessage } from '../../lib/device-protocol.ts';
import type { SummedWarning } from '../../lib/summed-warning.ts';
import { createTokenBucket } from '../../lib/token-bucket.ts';
import type { DeviceIdentity } from './device-auth.ts';
import type { ReadingWriter } from '../writer/reading-writer.ts';
import { dispatch, type Dispatch } from './device-dispatch.ts';
import type { FrameOwner, FrameSlices } from './frame-slices.ts';
import { startQuietHeartbeat, type QuietHeartbeat } from './quiet-heartbeat.ts';

// A hostile peer may never answer our close frame; ws would wait 30 s for it.
const CLOSE_GRACE_MS = 1000;

/** A device as the registry holds it: which socket speaks for it now. */
interface BoundDevice {
  readonly deviceId: string;
}

/** What a socket needs of the hub's registry of devices. */
export interface DeviceRegistry {
  /** Why `hello` may not bind a socket of `identity`, or undefined when it may. */
  refusal(hello: HelloMessage, identity: DeviceIdentity): string | undefined;
  /** Binds the device `hello` names to `ws`, taking it over from any older socket. */
  bind(hello: HelloMessage, ws: WSContext): BoundDevice;
  /**
   * `ws` speaks for `device` again (after a newer socket had taken over), in `session` when a hello says so, with
   * `backlog` unacknowledged readings when the message says so.
   */
  touch(device: BoundDevice, ws: WSContext, session?: string, backlog?: number): void;
  /** `ws` closed: the device is disconnected unless a newer socket holds it. */
  release(device: BoundDevice, ws: WSContext, code: number): void;
}

/** Warnings shared by every socket of the hub, summed. */
interface SocketWarnings {
  malformed: SummedWarning;
  silent: SummedWarning;
  impostor: SummedWarning;
}

export interface DeviceSocketOptions {
  log: Logger;
  registry: DeviceRegistry;
  warnings: SocketWarnings;
  /** A writer for the bound device: `send` its acks, `overflow` when it dropped what it held. */
  writer(deviceId: string, send: (ack: AckMessage) => void, overflow: () => void): ReadingWriter;
  /** Every open socket, so that the hub can close them all. */
  sockets: Set<WebSocket>;
  helloTimeoutMs: number;
  rate: { perSecond: number; burst: number };
  /** Where frames wait to be handled: one for all the hub's sockets, so that a slice is the process's. */
  frames: FrameSlices<unknown>;
}

/**
 * The events of one socket from `remoteAddress`, whose token speaks for `identity`; `done(n)` once n of its frames
 * are handled, or dropped unhandled (what the main thread counts against the socket's read budget).
 */
export function createDeviceSocket(
  options: DeviceSocketOptions,
  remoteAddress: string,
  identity: DeviceIdentity,
  done: (frames: number) => void = () => {},
) {
  const { log, registry, warnings, sockets, helloTimeoutMs, rate, frames } = options;
  let messages: DeviceMessages | undefined;
  let ending = false;
  let hello: HelloDeadline | undefined;
  let owner: FrameOwner<unknown> | undefined;
  let heartbeat: QuietHeartbeat | undefined;
  const bucket = createTokenBucket(rate);
  const who = () => ({ remoteAddress, deviceId: messages?.device()?.deviceId });

  /** Stops everything this socket does; closes it with `close` (terminated if the peer does not answer). */
  function end(ws: WSContext, close?: { code: number; reason: string }) {
    if (ending) return;
    ending = true;
    hello?.stop();
    heartbeat?.stop();
    messages?.stop();
    if (owner) done(frames.drop(owner));
    if (!close) return raw(ws).terminate();
    ws.close(close.code, close.reason);
    setTimeout(() => raw(ws).terminate(), CLOSE_GRACE_MS).unref();
  }
  function noHello(ws: WSContext) {
    if (ending) return;
    warnings.silent.note({ remoteAddress });
    end(ws, { code: CLOSE_POLICY, reason: 'no hello' });
  }
  /** False (and the socket closed) once the peer is over its rate. */
  function withinRate(ws: WSContext): boolean {
    if (bucket.take()) return true;
    // What came within the rate is handled first, the hello too: a burst read in one go can reach the limit while
    // its hello still waits in the queue, and the warning names the device the socket said it was.
    if (owner) frames.flush(owner);
    if (ending) return false;
    log.warn(
      { ...who(), perSecond: rate.perSecond, burst: rate.burst },
      `closed a device socket over its message rate (${rate.perSecond}/s, burst ${rate.burst}) with ${CLOSE_POLICY}`,
    );
    end(ws, { code: CLOSE_POLICY, reason: 'message rate exceeded' });
    return false;
  }
  const events: WSEvents = {
    onOpen(_event, ws) {
      sockets.add(raw(ws));
      const socket = {
        ws,
        remoteAddress,
        identity,
        end: (close?: { code: number; reason: string }) => end(ws, close),
        sent: () => heartbeat?.sent(),
      };
      messages = createDeviceMessages(options, socket, () => hello?.stop());
      hello = createHelloDeadline(helloTimeoutMs, () => noHello(ws));
      owner = pausingOwner(ws, (data) => {
        if (!ending) messages!.act(dispatch(data, messages!.device()?.deviceId));
        hello!.handled(messages!.device() !== undefined);
        done(1);
      });
      heartbeat = startQuietHeartbeat(() => raw(ws).pong());
      // ws answers pings itself; they cost a pong each, so they count against the rate like messages.
      raw(ws).on('ping', () => {
        if (!ending && withinRate(ws)) heartbeat?.sent();
      });
    },
    onMessage(event, ws) {
      if (ending || !withinRate(ws)) return done(1);
      hello!.arrived();
      frames.push(owner!, event.data);
    },
    onClose(event, ws) {
      // What the device sent before it closed is still handled, before the socket lets its device go.
      if (owner) frames.flush(owner);
      end(ws);
      sockets.delete(raw(ws));
      const device = messages?.device();
      if (device) registry.release(device, ws, event.code);
    },
    onError(event) {
      const error = (event as ErrorEvent).error as Error | undefined;
      log.warn({ ...who(), err: error?.message }, `device socket error: ${error?.message}`);
    },
  };
  return events;
}

const raw = (ws: WSContext) => ws.raw as WebSocket;

/** The socket as the frame slices see it: `handle` each frame; paused while too many wait. */
function pausingOwner(ws: WSContext, handle: (frame: unknown) => void): FrameOwner<unknown> {
  return { handle, pause: () => raw(ws).pause(), resume: () => raw(ws).resume() };
}

/** The deadline for a hello, once `stop()`ped by it or by the socket's end. */
interface HelloDeadline {
  /** A frame came: whatever it is, it came in time. */
  arrived(): void;
  /** A frame was handled; `bound` once a hello bound the socket. */
  handled(bound: boolean): void;
  stop(): void;
}

/**
 * Calls `expired` when no hello came within `timeoutMs`. A frame that came in time but waits in the queue (the
 * backend is busy) may be the hello: past the deadline with frames unhandled, the socket is judged once they are.
 */
function createHelloDeadline(timeoutMs: number, expired: () => void): HelloDeadline {
  let unhandled = 0;
  let overdue = false;
  let stopped = false;
  const timer = setTimeout(() => {
    if (unhandled > 0) overdue = true;
    else expired();
  }, timeoutMs);
  return {
    arrived: () => void (unhandled += 1),
    handled(bound) {
      unhandled -= 1;
      if (bound) this.stop();
      else if (overdue && unhandled === 0 && !stopped) expired();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** What the messages of a socket need of it. */
interface SocketSide {
  ws: WSContext;
  remoteAddress: string;
  identity: DeviceIdentity;
  /** Ends the socket (closed with `close`, or terminated). */
  end(close?: { code: number; reason: string }): void;
  /** Something was sent: the socket checks what the peer leaves unread. */
  sent(): void;
}

/** A socket's messages once they are decided (device-dispatch.ts): its device, once bound, and that device's writer. */
interface DeviceMessages {
  act(decision: Dispatch): void;
  device(): BoundDevice | undefined;
  /** The socket ends: its writer stops. */
  stop(): void;
}

function createDeviceMessages(options: DeviceSocketOptions, socket: SocketSide, bound: () => void): DeviceMessages {
  const { log, registry, warnings } = options;
  const { ws, remoteAddress, identity, end } = socket;
  let device: BoundDevice | undefined;
  let writer: ReadingWriter | undefined;
  let stopped = false;

  function hello(message: HelloMessage) {
    const refused = registry.refusal(message, identity);
    if (refused) {
      const tokenDevice = identity.deviceId ?? '(shared token)';
      warnings.impostor.note({ remoteAddress, tokenDevice, claimed: message.deviceId });
      return end({ code: CLOSE_POLICY, reason: refused });
    }
    bound();
    device = registry.bind(message, ws);
    const send = (ack: AckMessage) => {
      if (stopped) return;
      ws.send(JSON.stringify(ack));
      socket.sent();
    };
    writer = options.writer(device.deviceId, send, () =>
      end({ code: CLOSE_TRY_AGAIN_LATER, reason: 'too many readings held; resend later' }),
    );
  }

  return {
    act(decision) {
      const deviceId = device?.deviceId;
      if (decision.kind === 'malformed') {
        const { reason, sample } = decision;
        return warnings.malformed.note({ remoteAddress, deviceId, reason, sample });
      }
      if (decision.kind === 'hello') return hello(decision.message);
      if (decision.kind === 'bound') {
        registry.touch(device!, ws, decision.session, decision.backlog);
        if (decision.lost) writer!.declare(decision.lost.session, decision.lost.reason, decision.lost.ranges);
        if (decision.readings) writer!.accept(decision.readings.session, decision.readings.readings);
        return;
      }
      const [fields, why, reason] =
        decision.kind === 'hello-first'
          ? [{ remoteAddress, type: decision.type }, 'whose first message was not hello', 'hello first']
          : [
              { remoteAddress, deviceId, claimed: decision.claimed },
              'that named a second device',
              'one device per socket',
            ];
      log.warn(fields, `closed a device socket ${why} (${CLOSE_POLICY})`);
      end({ code: CLOSE_POLICY, reason });
    },
    device: () => device,
    stop() {
      stopped = true;
      writer?.close();
    },
  };
}
