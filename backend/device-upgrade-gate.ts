// Decides, before any WebSocket exists, whether a device socket upgrade may proceed: 401 without the right
// token, 503 (with Retry-After) when DEVICE_SOCKETS_MAX sockets are already open.
import type { Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { Logger } from '../lib/logger.ts';
import { createSummedWarning } from '../lib/summed-warning.ts';
import { createTokenCheck } from './device-auth.ts';
import { createRefusalLog } from './refusal-log.ts';

export interface UpgradeGateOptions {
  log: Logger;
  /** DEVICE_TOKEN. Unset: every upgrade is refused, unless `open`. */
  token: string | undefined;
  /** Local mode without a token: devices connect without one. */
  open?: boolean;
  socketsMax: number;
  /** Seconds a client refused for capacity is asked to wait. */
  retryAfterS?: number;
}

export interface UpgradeGate {
  /**
   * A refusal to send instead of upgrading, or undefined to go ahead (the socket then holds a slot until it closes).
   */
  check(c: Context): Response | undefined;
  readonly open: number;
  flush(): void;
}

export function createUpgradeGate({
  log,
  token,
  open: openWithoutToken = false,
  socketsMax,
  retryAfterS = 5,
}: UpgradeGateOptions): UpgradeGate {
  const authorized = token ? createTokenCheck(token) : () => openWithoutToken;
  const refusals = createRefusalLog({ log });
  const full = createSummedWarning(
    log,
    (n) =>
      `refused ${n} device socket upgrade${n === 1 ? '' : 's'}: ` +
      `DEVICE_SOCKETS_MAX (${socketsMax}) sockets are open (503)`,
  );
  let open = 0;

  return {
    check(c) {
      const incoming = (c.env as HttpBindings | undefined)?.incoming;
      const address = incoming?.socket.remoteAddress ?? 'unknown';
      const authorization = c.req.header('authorization');
      if (!authorized(authorization)) {
        refusals.refused(
          address,
          !token ? 'DEVICE_TOKEN is not set on the backend' : authorization ? 'wrong token' : 'no token',
        );
        return c.body(null, 401, { 'WWW-Authenticate': 'Bearer realm="device socket"' });
      }
      if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') return undefined;
      if (open >= socketsMax) {
        full.note({ remoteAddress: address });
        return c.body(null, 503, { 'Retry-After': String(retryAfterS) });
      }
      // The slot lasts as long as the TCP connection: also when the handshake is aborted half-way.
      if (incoming) {
        open += 1;
        incoming.socket.once('close', () => {
          open -= 1;
        });
      }
      return undefined;
    },
    get open() {
      return open;
    },
    flush() {
      refusals.flush();
      full.flush();
    },
  };
}
