// The shape of GET /status.json: what the frontend learned about each service, for the page and for people.
import type { JudgedCheck } from '../lib/health-judge.ts';

export type { JudgedCheck };

/** `failing`: the service answered, but not with the contract's liveness answer (lib/health-judge.ts). */
export type LivenessState = 'ok' | 'failing' | 'unreachable';

/** `failing`: the service answered /api/ready with something that is not a readiness answer (lib/health-judge.ts). */
export type ReadinessState = 'ready' | 'not_ready' | 'shutting_down' | 'failing' | 'unreachable';

export interface ServiceStatus {
  name: 'backend' | 'device';
  url: string;
  liveness: LivenessState;
  readiness: ReadinessState;
  /** Dependency → state, as the service's readiness body reports it; empty when it could not be read. */
  checks: Record<string, string>;
  /**
   * Each of `checks` judged: fine or not by the service's own word (its readiness `details`), else by the judge's
   * known-good list; since when and why when the service says (lib/health-judge.ts).
   */
  details: Record<string, JudgedCheck>;
  /** The release that answered, from the liveness body's `version`; null when it reports none. */
  version: string | null;
  /** Seconds, from the liveness body; null when liveness could not be read. */
  uptime: number | null;
  environment: string | null;
  /** The backend's optional liveness detail. */
  database: { status: string; name: string } | null;
  /** The device service's liveness detail `readings`: what it still holds; null when absent (and for the backend). */
  backlog: DeviceBacklog | null;
  /** What went wrong, in words (e.g. "readiness: connection refused"); null when both probes answered. */
  problem: string | null;
  /** Time the slower of the two probes took. */
  ms: number;
}

export interface DeviceBacklog {
  /** Readings the device service holds that the backend has not acknowledged yet. */
  unacknowledged: number;
  /** Bytes of its on-disk spool; null when it did not say. */
  spoolBytes: number | null;
  /** Readings it had to drop (spool full) since it started; null when it did not say. */
  dropped: number | null;
}

export interface DeviceReading {
  seq: number;
  /** ISO 8601 time the device read the line. */
  timestamp: string;
  /** ISO 8601 time the backend received it, what "latest" is ordered by (`timestamp` when the backend did not say). */
  receivedAt: string;
  /** The line, cut to SHOWN_VALUE_MAX characters and `…` when longer (frontend/reading-value.ts). */
  value: string;
  /** The value's length in characters when it was cut; absent when `value` is whole. */
  cutFrom?: number;
}

export interface SeriesPoint {
  /** ISO 8601 time the device read the line. */
  timestamp: string;
  /** ISO 8601 time the backend received it (`timestamp` when it did not say): the chart's time axis. */
  receivedAt: string;
  /** The number the value carries (`temperature_c=21.00` → 21); null when it carries none of the series' name. */
  number: number | null;
}

export interface ReadingSeries {
  /** What the numbers are (`temperature_c`), from the newest reading with a number; null for bare numbers. */
  name: string | null;
  /** In the order the backend received them, oldest first (receivedAt, then seq). */
  points: SeriesPoint[];
}

export interface RecentReadings {
  /** False when this device's readings could not be read (see `problem`). */
  available: boolean;
  problem: string | null;
  series: ReadingSeries;
}

/** One device of the fleet as the backend's GET /api/devices lists it (the frontend's own name for the shape). */
export interface FleetDevice {
  deviceId: string;
  connected: boolean;
  lastReading: DeviceReading | null;
  /** How many readings of this device the backend has stored; null when it did not say. */
  readingsStored: number | null;
  /** Readings the device declared lost (evicted, never written) and the backend never stored; null when not said. */
  readingsLost: number | null;
  /** Readings the device reported as not yet acknowledged; null when unknown. */
  backlog: number | null;
  /** ISO 8601 time the backend last heard from the device; null when it did not say. */
  lastSeenAt: string | null;
  /** The device's latest readings as a series; null for devices past the first few, which are not asked for. */
  recent: RecentReadings | null;
}

export interface AttentionList {
  /** False when the backend could not say which devices need attention (see `problem`). */
  available: boolean;
  problem: string | null;
  /** Connected devices with the largest backlog first, then those silent the longest, as the backend ranks them. */
  devices: FleetDevice[];
}

export interface ReadingsStatus {
  /** False when the backend's device list could not be read (see `problem`). */
  available: boolean;
  problem: string | null;
  /** Devices the backend knows; the length of `devices` when it did not say. */
  total: number;
  /** The first page of the device list, in the backend's order (by device id). */
  devices: FleetDevice[];
  attention: AttentionList;
  /** The most recent reading of any listed device, with the device it came from. */
  latest: (DeviceReading & { deviceId: string; connected: boolean }) | null;
}

export interface StatusDocument {
  /** The frontend's own release (RELEASE_ID, else its checkout's short commit, else `unknown`). */
  version: string;
  /** ISO 8601 time the frontend asked the services. */
  checkedAt: string;
  /** Per-request timeout used for every probe. */
  timeoutMs: number;
  /** `ready` only when every monitored service is live and ready. */
  overall: 'ready' | 'degraded';
  /** True when the caller may see the fleet (local mode, or a signed-in operator); false: `readings` lists nothing. */
  operator: boolean;
  services: {
    backend: ServiceStatus;
    /** Null when DEVICE_URL is empty (the device panel is disabled). */
    device: ServiceStatus | null;
  };
  readings: ReadingsStatus;
}
