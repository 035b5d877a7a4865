// Types of board-view.js, the page's view model, for the Node tests that import it.
import type { StatusDocument } from '../status-document.ts';

export type { StatusDocument };
export type Tone = 'good' | 'bad' | 'warn' | 'muted';

export interface Verdict {
  tone: Tone;
  text: string;
}

export interface Row {
  label: string;
  text: string;
  tone?: Tone;
  /** A readiness check (database, serial, backend...). */
  check?: boolean;
  /** The reading's value: shown large, in monospace. */
  value?: boolean;
  iso?: string;
}

export interface Panel {
  id: 'backend' | 'device' | 'reading';
  title: string;
  url: string | null;
  verdict: Verdict;
  rows: Row[];
  note: string | null;
}

export interface Board {
  summary: Verdict;
  refreshed: { iso: string; text: string } | null;
  /** The latest refresh failed: the panels show older data. */
  stale: boolean;
  panels: Panel[];
}

export declare const REFRESH_MS: number;
export declare function describeBoard(doc: StatusDocument | null, options?: { fetchError?: string | null }): Board;
export declare function formatClock(iso: string): string;
export declare function formatDuration(seconds: number): string;
export declare function formatAge(ms: number): string;
