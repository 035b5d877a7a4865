// Types of board-view.js, the page's view model, for the Node tests that import it.
import type { StatusDocument } from '../status-document.ts';
import type { DeviceCard, Tone, Verdict } from './readings-view.js';

export type { StatusDocument, Tone, Verdict };

export interface Row {
  label: string;
  text: string;
  tone?: Tone;
  /** A readiness check (database, serial, backend...). */
  check?: boolean;
  /** A failing check: since when and why, as the service says (`since 10:00:03: client closed`). */
  detail?: string;
  /** The reading's value: shown large, in monospace. */
  value?: boolean;
  iso?: string;
}

export interface Panel {
  id: 'backend' | 'device' | 'readings';
  title: string;
  url: string | null;
  verdict: Verdict;
  rows: Row[];
  note: string | null;
  /** The Readings panel only: one card per charted device. */
  devices?: DeviceCard[];
  /** The Readings panel only: the devices not charted, in words. */
  more?: string | null;
  /** The Readings panel only: "12 readings held on the device" when the device service holds any. */
  held?: string | null;
}

export interface Board {
  summary: Verdict;
  refreshed: { iso: string; text: string } | null;
  /** The latest refresh failed: the panels show older data. */
  stale: boolean;
  panels: Panel[];
  /** The frontend's own release (the document's `version`); null before the first document. */
  release: string | null;
}

export declare const REFRESH_MS: number;
export declare function describeBoard(doc: StatusDocument | null, options?: { fetchError?: string | null }): Board;
export { formatAge, formatClock, formatDuration } from './format.js';
