// Builds the /status.json document: every probe in parallel, each bounded by the timeout, so it never hangs.
import { readDevices } from './device-readings.ts';
import { checkService } from './service-status.ts';
import type { ServiceStatus, StatusDocument } from './status-document.ts';

export interface StatusCollectorOptions {
  /** The frontend's own release, reported as the document's `version`. */
  version: string;
  backendUrl: string;
  /** Undefined: the device service is not monitored. */
  deviceUrl?: string;
  timeoutMs: number;
  /** BACKEND_READ_TOKEN: shown to the backend's /api/devices and /api/readings (needed outside its local mode). */
  backendReadToken?: string;
}

export interface StatusCollector {
  /** Callers that arrive while a collection is running share it, so many open pages cost one round of probes. */
  collect(): Promise<Omit<StatusDocument, 'operator'>>;
}

export function createStatusCollector(options: StatusCollectorOptions): StatusCollector {
  const { version, backendUrl, deviceUrl, timeoutMs, backendReadToken } = options;
  const readHeaders: Record<string, string> = backendReadToken ? { Authorization: `Bearer ${backendReadToken}` } : {};
  let running: ReturnType<StatusCollector['collect']> | undefined;

  async function collectOnce(): ReturnType<StatusCollector['collect']> {
    const checkedAt = new Date().toISOString();
    const [backend, device, readings] = await Promise.all([
      checkService('backend', backendUrl, timeoutMs),
      deviceUrl === undefined ? null : checkService('device', deviceUrl, timeoutMs),
      readDevices(backendUrl, timeoutMs, readHeaders),
    ]);
    const healthy = (s: ServiceStatus | null) => s === null || (s.liveness === 'ok' && s.readiness === 'ready');
    return {
      version,
      checkedAt,
      timeoutMs,
      overall: healthy(backend) && healthy(device) ? 'ready' : 'degraded',
      services: { backend, device },
      readings,
    };
  }

  return {
    collect() {
      running ??= collectOnce().finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}
