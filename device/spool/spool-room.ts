// The spool's room rule: when a record needs a new segment, and what goes to keep the spool under its bound (the
// oldest segment, unacknowledged readings and all). Pure: the spool's files (spool-files.ts) do what it says.

/** What the rule reads of the spool. */
export interface RoomState {
  /** The whole spool's bytes. */
  spoolBytes: number;
  /** The segment being appended to. */
  activeBytes: number;
  /** Whether the active segment is the oldest (the only one left). */
  activeIsOldest: boolean;
  /** Whether the active segment holds a reading (not only records carried forward). */
  activeHasReadings: boolean;
}

/** The next step to make room for a record: done, a new segment, or the oldest segment removed. */
export type RoomStep = 'done' | 'roll' | 'evict';

/** A segment's size: a sixteenth of the spool, 64 KiB–4 MiB, unless set. */
export const segmentBytesFor = (maxBytes: number) => Math.min(4 << 20, Math.max(64 << 10, Math.floor(maxBytes / 16)));

/** Whether a record of `bytes` starts a new segment first: a segment ends past its size, never empty. */
export const rollsFirst = (activeBytes: number, bytes: number, segmentBytes: number) =>
  activeBytes > 0 && activeBytes + bytes > segmentBytes;

/** What to do next for a record of `bytes` to fit under `maxBytes`; asked again after each step. */
export function roomStep(state: RoomState, bytes: number, maxBytes: number): RoomStep {
  if (state.spoolBytes + bytes <= maxBytes) return 'done';
  if (!state.activeIsOldest) return 'evict';
  // Nothing older left to give up: a record over maxBytes still goes, and a segment of carried records alone is
  // never rolled over again (each roll would carry them anew).
  if (state.activeBytes === 0 || !state.activeHasReadings) return 'done';
  return 'roll';
}
