// Test support: readings as the backend's GET /api/readings answers them (newest first), for fake backends.
import type { ReadingView } from '../../backend/readings/reading-document.ts';

export interface FakeReadingsOptions {
  deviceId: string;
  count: number;
  /** Time of the newest reading. */
  newest: Date;
  /** Time between readings. */
  everyMs?: number;
  /** The value of the i-th reading, oldest is 0; by default the emulator's `temperature_c=…` wave. */
  value?: (i: number) => string;
}

export const temperatureWave = (i: number) => `temperature_c=${(21 + Math.sin(i / 4) * 0.6).toFixed(2)}`;

/** Newest first, seq counting up from 1 with age, as the backend sends them. */
export function fakeReadings({
  deviceId,
  count,
  newest,
  everyMs = 1000,
  value = temperatureWave,
}: FakeReadingsOptions) {
  const readings: ReadingView[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const at = new Date(newest.getTime() - (count - 1 - i) * everyMs);
    readings.push({
      deviceId,
      session: 'session-1',
      seq: i + 1,
      timestamp: at.toISOString(),
      value: value(i),
      receivedAt: new Date(at.getTime() + 5).toISOString(),
    });
  }
  return readings;
}

/** The device-list entry the backend shows for these readings. */
export const deviceEntry = (readings: ReadingView[], connected = true) => ({
  deviceId: readings[0]?.deviceId,
  session: 'session-1',
  connected,
  lastReading: readings[0]
    ? { seq: readings[0].seq, timestamp: readings[0].timestamp, value: readings[0].value }
    : null,
  readingsStored: readings.length,
});
