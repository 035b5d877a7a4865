// Types of readiness-timeline.js, for the Node tests that import it.
import type { StatusDocument } from '../status-document.ts';
import type { Tone } from './readings-view.js';

export interface TimelineEntry {
  at: number;
  state: string;
}

export interface TimelineSegment {
  /** Percent of the window from its start. */
  left: number;
  width: number;
  tone: Tone;
  state: string;
  /** Local clock time the segment starts. */
  from: string;
}

export interface Timeline {
  segments: TimelineSegment[];
  changes: number;
  text: string;
  label: string;
}

export interface ReadinessHistory {
  record(doc: StatusDocument): void;
  of(name: string): TimelineEntry[];
}

export declare const TIMELINE_WINDOW_MS: number;
export declare function createReadinessHistory(options?: { windowMs?: number }): ReadinessHistory;
export declare function describeTimeline(entries: TimelineEntry[], now: number, windowMs?: number): Timeline | null;
