// Decides, before any WebSocket exists, whether a device socket upgrade may proceed: 401 without a right token,
// 503 (with Retry-After) when DEVICE_SOCKETS_MAX sockets are already open; a device's own token past its
// DEVICE_SOCKETS_PER_TOKEN sockets gets a socket closed at once with 1013 and a reason its device logs; otherwise it
// sets on the request's context whom the token speaks for, and the peer's address, for the upgrade handler after it.
import type { MiddlewareHandler } from 'hono';
import { upgradeWebSocket, type HttpBindings } from '@hono/node-server';
import { CLOSE_TRY_AGAIN_LATER } from '../../lib/device-protocol.ts';
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
  /**
   * Sockets one device's own token (DEVICE_TOKENS) may hold open at once; the shared DEVICE_TOKEN speaks for the
   * whole fleet and is bounded by `socketsMax` alone.
   */
  socketsPerToken?: number;
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
  socketsPerToken = Infinity,
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
  const perToken = createTokenSlots(log, socketsPerToken);
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
      if (!incoming) return next();
      // The slot lasts as long as the TCP connection: also when the handshake is aborted half-way.
      open += 1;
      incoming.socket.once('close', () => {
        open -= 1;
      });
      return perToken.take(identity.deviceId, address, incoming) ? next() : perToken.refuse(c, next);
    },
    flush() {
      refusals.flush();
      full.flush();
      perToken.flush();
    },
  };
}

/**
 * Sockets held per device token. Past the bound the upgrade is answered, so that the close frame can carry a code
 * and a reason: a 503 would reach the device as a bare status, and a flood of one token would not be told apart
 * from a full backend. 1013 (try again later): a device whose previous socket has not closed yet gets in once it has.
 */
function createTokenSlots(log: Logger, max: number) {
  const held = new Map<string, number>();
  const reason = `too many sockets for this device's token (DEVICE_SOCKETS_PER_TOKEN ${max} open)`;
  const refused = createSummedWarning(
    log,
    (n) => `refused ${n} device socket${n === 1 ? '' : 's'} past DEVICE_SOCKETS_PER_TOKEN (${max}) with 1013`,
  );
  const refuse = upgradeWebSocket(() => ({
    onOpen: (_event, ws) => ws.close(CLOSE_TRY_AGAIN_LATER, reason),
  }));
  return {
    /** Takes a slot of `deviceId`'s token for as long as `incoming`'s connection lasts; false when none is left. */
    take(deviceId: string | undefined, address: string, incoming: HttpBindings['incoming']): boolean {
      if (deviceId === undefined) return true;
      const now = held.get(deviceId) ?? 0;
      if (now >= max) {
        refused.note({ remoteAddress: address, tokenDevice: deviceId });
        return false;
      }
      held.set(deviceId, now + 1);
      incoming.socket.once('close', () => {
        const left = held.get(deviceId)! - 1;
        if (left > 0) held.set(deviceId, left);
        else held.delete(deviceId);
      });
      return true;
    },
    refuse,
    flush: () => refused.flush(),
  };
}
