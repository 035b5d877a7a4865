// Test helper: the real backend (against the MongoDB stand-in) and the real device service as processes.
import { MongoClient } from 'mongodb';
import { spawnService, type Service } from './spawn-service.ts';

/** The backend at debug level, so each write lists the readings it stored in a `readings stored` JSON line. */
export function startBackend(mongoUrl: string, port?: number, env: Record<string, string> = {}): Promise<Service> {
  return spawnService('backend/main.ts', {
    env: { MONGODB_URI: `${mongoUrl}/app`, LOG_LEVEL: 'debug', ...env },
    port,
  });
}

/** Without DEVICE_SPOOL_DIR in `env`, a fresh spool that goes with the process. */
export function startDevice(env: Record<string, string | undefined>, port?: number): Promise<Service> {
  return spawnService('device/main.ts', { env, port });
}

/** Every stdout line as JSON (throws on the first line that is not, naming it). */
export function jsonLines(service: Service): Array<Record<string, any>> {
  return service.stdout.map((line) => {
    try {
      return JSON.parse(line) as Record<string, any>;
    } catch {
      throw new Error(`not a JSON log line: ${line}`);
    }
  });
}

export interface Stored {
  deviceId: string;
  session: string;
  seq: number;
  value: string;
  /** When the device read the line (from the database; the backend's log does not carry it). */
  timestamp?: Date;
}

/**
 * The readings a backend process logged as stored anew, in order. A backend killed between a write and its log
 * line leaves some out (and the next one finds them stored already): where backends are killed, ask the
 * database (`storedInDatabase`).
 */
export const storedReadings = (backend: Service): Stored[] =>
  jsonLines(backend)
    .filter((line) => line.msg === 'readings stored')
    .flatMap(({ deviceId, readings }) =>
      (readings as Omit<Stored, 'deviceId'>[]).map(({ session, seq, value }) => ({ deviceId, session, seq, value })),
    );

/** The `time` (epoch ms) of the first log line with this message, if any yet. */
export const logTime = (service: Service, msg: string): number | undefined =>
  jsonLines(service).find((line) => line.msg === msg)?.time;

/** What the database (`startBackend`'s `<mongoUrl>/app`) holds, of `deviceId` or all, in the order it was inserted. */
export async function storedInDatabase(mongoUrl: string, deviceId?: string): Promise<Stored[]> {
  const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 2000 });
  try {
    const docs = await client
      .db('app')
      .collection('readings')
      .find(deviceId === undefined ? {} : { deviceId })
      .toArray();
    return docs.map(({ deviceId: id, session, seq, value, timestamp }) => ({
      deviceId: id,
      session,
      seq,
      value,
      timestamp,
    }));
  } finally {
    await client.close();
  }
}
