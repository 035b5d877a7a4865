// The set-up the readings fault runs share: the MongoDB stand-in as a process (so a run can SIGSTOP it), a socat
// pty, a spool directory that a restarted device finds again, a line writer on the pty, and the backends and device
// services started on them in order, each restart on the port of the one before.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnService, type Service } from '../../support/spawn-service.ts';
import { startMongoProcess, type MongoProcess } from '../../support/mongo-process.ts';
import { ptyDir, removePtyDir, startPtyPair, type PtyPair } from '../../support/pty-pair.ts';
import { waitFor } from '../../support/deadline.ts';
import { createLineWriter, type LineWriter } from './line-writer.ts';

export interface ReadingsRigOptions {
  deviceId: string;
  /** What each line the writer writes starts with. */
  prefix: string;
  /** The backends' MONGODB_URI, given the stand-in (a run that puts a proxy in between); else the stand-in's own. */
  mongoUri?: (db: MongoProcess) => string | Promise<string>;
  /** More environment for every device process (DEVICE_SPOOL_MAX_BYTES, LOG_LEVEL…). */
  deviceEnv?: Record<string, string>;
}

/** The device's liveness body's `readings`, the counts a run waits on. */
export interface DeviceReadings {
  unacknowledged: number;
  unwritten: number;
  dropped: number;
  declaredLost: number;
}

export interface ReadingsRig {
  db: MongoProcess;
  pty: PtyPair;
  spoolDir: string;
  writer: LineWriter;
  /** Every process started, in order: a restarted one has its own output. */
  backends: Service[];
  devices: Service[];
  backend(): Service;
  device(): Service;
  /** Starts a backend (on `port`: a restart after a kill) and waits until it answers. */
  startBackend(port?: number): Promise<Service>;
  /** Starts a device service sending to the last backend, and waits until it reads the pty. */
  startDevice(port?: number): Promise<Service>;
  readings(): Promise<DeviceReadings>;
  /** Stops every process it started, socat and the stand-in, and removes the pty links and the spool. */
  stop(): Promise<void>;
}

export async function getJson(url: string): Promise<Record<string, any>> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  return (await res.json()) as Record<string, any>;
}

export async function startReadingsRig({
  deviceId,
  prefix,
  mongoUri,
  deviceEnv = {},
}: ReadingsRigOptions): Promise<ReadingsRig> {
  const ptys = ptyDir();
  const spoolDir = mkdtempSync(join(tmpdir(), `readings-${deviceId}-spool-`));
  const rig = { spoolDir, backends: [] as Service[], devices: [] as Service[] } as ReadingsRig;
  rig.backend = () => rig.backends.at(-1)!;
  rig.device = () => rig.devices.at(-1)!;
  rig.stop = async () => {
    rig.writer?.stop();
    rig.db?.signal('SIGCONT'); // a stopped process cannot act on SIGTERM
    await Promise.all([...rig.devices, ...rig.backends, rig.db].map((p) => p?.stop()));
    await rig.pty?.stop();
    removePtyDir(ptys);
    rmSync(spoolDir, { recursive: true, force: true });
  };
  let uri: string;
  try {
    rig.db = await startMongoProcess();
    uri = mongoUri ? await mongoUri(rig.db) : rig.db.uri;
    rig.pty = await startPtyPair(ptys);
  } catch (error) {
    await rig.stop();
    throw error;
  }
  rig.writer = createLineWriter(() => rig.pty, prefix);
  rig.startBackend = async (port) => {
    rig.backends.push(await spawnService('backend/main.ts', { env: { MONGODB_URI: uri }, port }));
    return rig.backend();
  };
  rig.startDevice = async (port) => {
    const env = { SERIAL_PATH: rig.pty.devicePath, BACKEND_URL: rig.backend().url, DEVICE_SPOOL_DIR: spoolDir };
    rig.devices.push(
      await spawnService('device/main.ts', { env: { ...env, DEVICE_ID: deviceId, ...deviceEnv }, port }),
    );
    await waitFor(async () => (await getJson(`${rig.device().url}/api/ready`)).checks.serial === 'connected', {
      timeout: 10_000,
      what: 'the device reading the pty',
    });
    return rig.device();
  };
  rig.readings = async () => (await getJson(`${rig.device().url}/api/health`)).readings as DeviceReadings;
  return rig;
}
