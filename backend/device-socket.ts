// One device socket's life on the backend: a hello within the deadline that binds it to one device, then that
// device's frames handed to its writer and the writer's acks sent back, all under a message rate and a bound on
// what the peer leaves unread, and one `end()` whichever way the socket goes.
import type { WSContext, WSEvents } from 'hono/ws';
import type { WebSocket } from 'ws';
import type { Logger } from '../lib/logger.ts';
import {
  CLOSE_TRY_AGAIN_LATER,
  checkDeviceMessage,
  readingsOf,
  type AckMessage,
  type DeviceMessage,
  type HelloMessage,
} from '../lib/device-protocol.ts';
import type { SummedWarning } from '../lib/summed-warning.ts';
import { createTokenBucket } from '../lib/token-bucket.ts';
import type { DeviceIdentity } from './device-auth.ts';
import type { ReadingWriter } from './reading-writer.ts';

export const CLOSE_POLICY = 1008;
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
  sendBufferMax: number;
}

/** The events of one socket from `remoteAddress`, whose token speaks for `identity`. */
export function createDeviceSocket(options: DeviceSocketOptions, remoteAddress: string, identity: DeviceIdentity) {
  const { log, registry, warnings, sockets, helloTimeoutMs, rate, sendBufferMax } = options;
  let device: BoundDevice | undefined;
  let writer: ReadingWriter | undefined;
  let ending = false;
  let helloTimer: NodeJS.Timeout | undefined;
  const bucket = createTokenBucket(rate);
  const raw = (ws: WSContext) => ws.raw as WebSocket;

  /** Stops everything this socket does; closes it with `close` (terminated if the peer does not answer). */
  function end(ws: WSContext, close?: { code: number; reason: string }) {
    if (ending) return;
    ending = true;
    clearTimeout(helloTimer);
    writer?.close();
    if (!close) return raw(ws).terminate();
    ws.close(close.code, close.reason);
    setTimeout(() => raw(ws).terminate(), CLOSE_GRACE_MS).unref();
  }
  /** False (and the socket closed) once the peer is over its rate. */
  function withinRate(ws: WSContext): boolean {
    if (bucket.take()) return true;
    log.warn(
      { remoteAddress, deviceId: device?.deviceId, perSecond: rate.perSecond, burst: rate.burst },
      `closed a device socket over its message rate (${rate.perSecond}/s, burst ${rate.burst}) with ${CLOSE_POLICY}`,
    );
    end(ws, { code: CLOSE_POLICY, reason: 'message rate exceeded' });
    return false;
  }
  /** Our replies queue up in memory when the peer stops reading: past the bound, drop the peer. */
  function checkSendBuffer(ws: WSContext) {
    const buffered = raw(ws).bufferedAmount;
    if (buffered <= sendBufferMax || ending) return;
    log.warn(
      { remoteAddress, deviceId: device?.deviceId, buffered },
      `dropped a device socket that stopped reading (${buffered} bytes unsent)`,
    );
    end(ws);
  }
  function hello(message: HelloMessage, ws: WSContext): BoundDevice | undefined {
    const refused = registry.refusal(message, identity);
    if (refused) {
      warnings.impostor.note({
        remoteAddress,
        tokenDevice: identity.deviceId ?? '(shared token)',
        claimed: message.deviceId,
      });
      end(ws, { code: CLOSE_POLICY, reason: refused });
      return undefined;
    }
    clearTimeout(helloTimer);
    const bound = registry.bind(message, ws);
    writer = options.writer(
      bound.deviceId,
      (ack) => {
        if (ending) return;
        ws.send(JSON.stringify(ack));
        checkSendBuffer(ws);
      },
      () => end(ws, { code: CLOSE_TRY_AGAIN_LATER, reason: 'too many readings held; resend later' }),
    );
    return bound;
  }
  /** A message after the hello: more of the same device, or the socket is closed. */
  function bound(message: DeviceMessage, ws: WSContext, to: BoundDevice) {
    if (message.deviceId !== to.deviceId) {
      log.warn(
        { remoteAddress, deviceId: to.deviceId, claimed: message.deviceId },
        `closed a device socket that named a second device (${CLOSE_POLICY})`,
      );
      end(ws, { code: CLOSE_POLICY, reason: 'one device per socket' });
      return;
    }
    registry.touch(to, ws, message.type === 'hello' ? message.session : undefined, message.backlog);
    if (message.type === 'lost') writer!.declare(message.session, message.reason, message.ranges);
    else if (message.type !== 'hello') writer!.accept(message.session, readingsOf(message));
  }

  const events: WSEvents = {
    onOpen(_event, ws) {
      sockets.add(raw(ws));
      helloTimer = setTimeout(() => {
        warnings.silent.note({ remoteAddress });
        end(ws, { code: CLOSE_POLICY, reason: 'no hello' });
      }, helloTimeoutMs);
      // ws answers pings itself; they cost a pong each, so they count against the rate like messages.
      raw(ws).on('ping', () => {
        if (!ending && withinRate(ws)) checkSendBuffer(ws);
      });
    },
    onMessage(event, ws) {
      if (ending || !withinRate(ws)) return;
      const checked = typeof event.data === 'string' ? checkDeviceMessage(event.data) : { reason: 'binary' };
      if ('reason' in checked) {
        const sample = typeof event.data === 'string' ? event.data.slice(0, 100) : '<binary>';
        warnings.malformed.note({ remoteAddress, deviceId: device?.deviceId, reason: checked.reason, sample });
        return;
      }
      const { message } = checked;
      if (device) return bound(message, ws, device);
      if (message.type === 'hello') {
        device = hello(message, ws);
        return;
      }
      log.warn(
        { remoteAddress, type: message.type },
        `closed a device socket whose first message was not hello (${CLOSE_POLICY})`,
      );
      end(ws, { code: CLOSE_POLICY, reason: 'hello first' });
    },
    onClose(event, ws) {
      end(ws);
      sockets.delete(raw(ws));
      if (device) registry.release(device, ws, event.code);
    },
    onError(event) {
      const error = (event as ErrorEvent).error as Error | undefined;
      log.warn(
        { remoteAddress, deviceId: device?.deviceId, err: error?.message },
        `device socket error: ${error?.message}`,
      );
    },
  };
  return events;
}
