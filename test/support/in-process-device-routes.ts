// The device hub in the test's own process, behind the backend's upgrade gate: the backend runs the hub on a thread
// of its own and the gate on its main thread (backend/device-thread/device-thread.ts); tests of the hub's sockets and
// of the app's routes mount both here, without a thread.
import { upgradeWebSocket } from '@hono/node-server';
import { createDeviceHub, type DeviceHubOptions, type DeviceRoutes } from '../../backend/device-socket/device-hub.ts';
import { createUpgradeGate, type UpgradeGateOptions } from '../../backend/device-socket/device-upgrade-gate.ts';

export type InProcessOptions = DeviceHubOptions &
  Pick<UpgradeGateOptions, 'token' | 'open' | 'socketsPerToken'> & { socketsMax?: number };

export function inProcessDeviceRoutes(options: InProcessOptions): DeviceRoutes {
  const hub = createDeviceHub(options);
  const gate = createUpgradeGate({ socketsMax: 1000, ...options });
  return {
    ...hub,
    gate: gate.middleware,
    upgrade: upgradeWebSocket((c) => hub.events(c.get('remoteAddress'), c.get('deviceIdentity'))),
    async closeAll() {
      await hub.closeAll();
      gate.flush();
    },
  };
}
