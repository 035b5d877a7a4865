// Decides, before any WebSocket exists, whether a device socket upgrade may proceed: 401 without a right token,
// 503 (with Retry-After) when DEVICE_SOCKETS_MAX sockets are already open; otherwise it sets on the request's
// context whom the token speaks for, and the peer's address, for the upgrade handler after it.
import type { MiddlewareHandler } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { Logger } from '../../lib/logger.ts';
import { createSummedWarning } from '../../lib/summed-warning.ts';
import { createTokenCheck, type DeviceIdentity } from './device-auth.ts';
import { createRefusalLog } from './refusal-log.ts';

export interface UpgradeGateOptions {
  log: Logger;
  /** DEVICE_TOKEN: admits any device `tokens` does not list. */
  token: string | undefined;
  /** DEVICE_TOKENS: each listed device's own token. With neither, every upgrade is refused, unless `open`. */
  tokens?: ReadonlyMap<string, string>;
  /** Local mode without any token: devices connect without one. */
  open?: boolean;
  socketsMax: number;
  /** Seconds a client refused for capacity is asked to wait. */
  retryAfterS?: number;
}

/** What the gate sets on the context of an upgrade it lets through. */
export interface UpgradeGateEnv {
  Variables: { deviceIdentity: DeviceIdentity; remoteAddress: string };
}

export interface UpgradeGate {
  /**
   * Answers with a refusal instead of upgrading, or sets `deviceIdentity` and `remoteAddress` and goes on (the
   * socket then holds a slot until it closes).
   */
  middleware: MiddlewareHandler<UpgradeGateEnv>;
  flush(): void;
}

export function createUpgradeGate({
  log,
  token,
  tokens,
  open: openWithoutToken = false,
  socketsMax,
  retryAfterS = 5,
}: UpgradeGateOptions): UpgradeGate {
  const anyToken = token !== undefined || (tokens !== undefined && tokens.size > 0);
  const identify = anyToken
    ? createTokenCheck({ shared: token, devices: tokens })
    : () => (openWithoutToken ? { deviceId: undefined } : undefined);
  const refusals = createRefusalLog({ log });
  const full = createSummedWarning(
    log,
    (n) =>
      `refused ${n} device socket upgrade${n === 1 ? '' : 's'}: ` +
      `DEVICE_SOCKETS_MAX (${socketsMax}) sockets are open (503)`,
  );
  let open = 0;

  return {
    middleware: async function deviceUpgradeGate(c, next) {
      const incoming = (c.env as HttpBindings | undefined)?.incoming;
      const address = incoming?.socket.remoteAddress ?? 'unknown';
      const authorization = c.req.header('authorization');
      const identity = identify(authorization);
      if (!identity) {
        refusals.refused(
          address,
          !anyToken
            ? 'neither DEVICE_TOKEN nor DEVICE_TOKENS is set on the backend'
            : authorization
              ? 'wrong token'
              : 'no token',
        );
        return c.body(null, 401, { 'WWW-Authenticate': 'Bearer realm="device socket"' });
      }
      c.set('deviceIdentity', identity);
      c.set('remoteAddress', address);
      if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') return next();
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
      return next();
    },
    flush() {
      refusals.flush();
      full.flush();
    },
  };
}
