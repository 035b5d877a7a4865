// Types of fleet-view.js, the fleet's view model in the Readings panel, for the Node tests that import it.
import type { FleetDevice, ReadingsStatus } from '../status-document.ts';
import type { Verdict } from './readings-view.js';

export interface AttentionItem {
  deviceId: string;
  /** Why, in words: "disconnected · 1,234 readings held · last heard 5 min 0 s ago". */
  text: string;
}

export interface FleetRow {
  deviceId: string;
  verdict: Verdict;
  /** The newest value, or "none yet". */
  value: string;
  age: string | null;
  iso: string | null;
  /** "none", "1,234 readings" or "unknown". */
  backlog: string;
}

export declare const SILENT_MS: number;
export declare function describeFleetCount(readings: ReadingsStatus): string;
export declare function describeAttention(
  readings: ReadingsStatus,
  checkedAt: string,
): { items: AttentionItem[]; note: Verdict | null };
export declare function describeFleetRows(devices: FleetDevice[], checkedAt: string): FleetRow[];
