// Types of readings-view.js, the Readings panel's view model, for the Node tests that import it.
import type { ReadingSeries, StatusDocument } from '../status-document.ts';
import type { AttentionItem, FleetRow } from './fleet-view.js';

export type Tone = 'good' | 'bad' | 'warn' | 'muted';

export interface Verdict {
  tone: Tone;
  text: string;
}

export interface Chart {
  /** SVG path data in the CHART box: one subpath per unbroken run of numbers. */
  line: string;
  /** A dot on the newest number. */
  newest: string;
  /** The max and min guide lines. */
  grid: string;
  latest: string;
  min: string;
  max: string;
  /** Age of the oldest point ("1 min 0 s ago"); null when every point has the same time. */
  from: string | null;
  /** Age of the newest point ("3 s ago"). */
  to: string;
  /** The chart's text alternative: what, over which period, latest, min and max. */
  label: string;
}

export interface DeviceCard {
  deviceId: string;
  verdict: Verdict;
  latest: { value: string; seq: number; iso: string; clock: string; age: string } | null;
  /** "1,234 readings stored"; null when the backend did not say. */
  stored: string | null;
  chart: Chart | null;
  /** Why there is no chart, when there is none: a problem (`warn`) or just how it is (`muted`). */
  note: Verdict | null;
}

export declare const CHART: { width: number; height: number; pad: number };
export declare function describeReadings(doc: StatusDocument): {
  id: 'readings';
  title: string;
  url: null;
  verdict: Verdict;
  rows: [];
  note: string | null;
  devices: DeviceCard[];
  /** "2 devices", or "2,500 devices · the first 100 devices listed"; null when the list could not be read. */
  fleet: string | null;
  /** The devices needing attention, or why there are none; null when the list could not be read. */
  attention: { items: AttentionItem[]; note: Verdict | null } | null;
  /** The listed devices without a card. */
  others: FleetRow[];
  held: string | null;
};
export declare function describeChart(series: ReadingSeries, checkedAt: string): Chart | null;
