// Watches the device service from outside during a swarm test: its /api/ready (how often its backend socket was
// lost) and its /api/health backlog (the longest stretch during which some reading waited for its ack).
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 100;

interface DeviceReady {
  checks: { backend?: string };
}
interface DeviceHealth {
  readings?: { unacknowledged: number };
}

async function get<T>(url: string): Promise<T | undefined> {
  try {
    return (await (await fetch(url, { signal: AbortSignal.timeout(1000) })).json()) as T;
  } catch {
    return undefined;
  }
}

export function createDeviceWatch(device: string) {
  let running = true;
  let backend = '';
  let lost = 0;
  let waitingSince = 0;
  let longestWaitMs = 0;
  let mostUnacknowledged = 0;

  async function poll(): Promise<void> {
    while (running) {
      const [ready, health] = await Promise.all([
        get<DeviceReady>(`${device}/api/ready`),
        get<DeviceHealth>(`${device}/api/health`),
      ]);
      const now = Date.now();
      const state = ready?.checks.backend ?? 'unanswered';
      if (backend === 'connected' && state !== 'connected') lost++;
      backend = state;
      const unacknowledged = health?.readings?.unacknowledged ?? 0;
      mostUnacknowledged = Math.max(mostUnacknowledged, unacknowledged);
      if (unacknowledged > 0 && waitingSince === 0) waitingSince = now;
      if (unacknowledged === 0) waitingSince = 0;
      if (waitingSince) longestWaitMs = Math.max(longestWaitMs, now - waitingSince);
      await sleep(POLL_MS);
    }
  }

  const polling = poll();
  return {
    /** Stops polling; what it saw. */
    async stop() {
      running = false;
      await polling;
      return { backendLost: lost, longestWaitMs, mostUnacknowledged, lastBackend: backend };
    },
  };
}
