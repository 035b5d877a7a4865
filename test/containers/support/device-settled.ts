// The device service as a swarm test reads it from outside: its backend socket's state (and since when) and its
// backlog, and the wait until it settled after a fault: connected again with no reading left waiting for an ack.
import { waitFor } from '../../support/deadline.ts';

interface DeviceReady {
  checks: { backend: string };
  details: { backend: { since: string } };
}
interface DeviceHealth {
  readings: { unacknowledged: number };
}

export interface DeviceState {
  backend: string;
  /** When the backend check entered its state (ms since the epoch, the device's clock: the machine's). */
  backendSince: number;
  unacknowledged: number;
}

/** The device's backend check and backlog, or undefined while it does not answer within 2 s. */
export async function deviceState(device: string): Promise<DeviceState | undefined> {
  try {
    const options = { signal: AbortSignal.timeout(2000) };
    const [ready, health] = await Promise.all([
      fetch(`${device}/api/ready`, options).then((r) => r.json() as Promise<DeviceReady>),
      fetch(`${device}/api/health`, options).then((r) => r.json() as Promise<DeviceHealth>),
    ]);
    const since = Date.parse(ready.details.backend.since);
    return { backend: ready.checks.backend, backendSince: since, unacknowledged: health.readings.unacknowledged };
  } catch {
    return undefined;
  }
}

/** Waits until the device at `device` (its base URL) is connected with nothing unacknowledged; throws at `timeout`. */
export async function deviceSettled(device: string, timeout: number): Promise<DeviceState> {
  return waitFor(
    async () => {
      const state = await deviceState(device);
      return state?.backend === 'connected' && state.unacknowledged === 0 ? state : undefined;
    },
    { timeout, interval: 200, what: 'the device connected with no unacknowledged reading' },
  );
}
