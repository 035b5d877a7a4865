// The device service settled after a fault: its socket to the backend connected again and no reading left waiting
// for an ack. What a swarm test waits for before it counts the stored readings.
import { waitFor } from '../../support/deadline.ts';

interface DeviceReady {
  checks: { backend: string };
}
interface DeviceHealth {
  readings: { unacknowledged: number };
}

/** Waits until the device at `device` (its base URL) is connected with nothing unacknowledged; throws at `timeout`. */
export async function deviceSettled(device: string, timeout: number): Promise<void> {
  await waitFor(
    async () => {
      const [ready, health] = await Promise.all([
        fetch(`${device}/api/ready`).then((r) => r.json() as Promise<DeviceReady>),
        fetch(`${device}/api/health`).then((r) => r.json() as Promise<DeviceHealth>),
      ]);
      return ready.checks.backend === 'connected' && health.readings.unacknowledged === 0;
    },
    { timeout, interval: 200, what: 'the device connected with no unacknowledged reading' },
  );
}
