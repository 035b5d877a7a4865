// The path the readings benches drive: a socat pty, and a real device service reading it and sending to a backend.
// Lines go into the pty in bulk; acknowledgements are read from the device's `readings acknowledged` debug lines.
import { open } from 'node:fs/promises';
import { ptyDir, removePtyDir, startPtyPair } from '../support/pty-pair.ts';
import { spawnService, type Service } from '../support/spawn-service.ts';
import { waitFor } from '../support/deadline.ts';

export interface ReadingsPath {
  device: Service;
  /**
   * Writes `count` sensor lines into the pty as fast as it takes them. Asynchronous, so this process keeps reading
   * the device's output meanwhile (a device blocked on a full stdout pipe would stop reading the pty).
   */
  write(count: number): Promise<void>;
  /** The highest `seq` of the device's session acknowledged so far, and when (epoch ms, the device's log time). */
  acked(): { seq: number; time: number };
  /** The device's backlog, from its liveness body. */
  unacknowledged(): Promise<number>;
  stop(): Promise<void>;
}

/** `logLevel` debug (the default) logs each ack, which `acked()` needs; info keeps a polled device's log quiet. */
export async function startReadingsPath(backendUrl: string, { logLevel = 'debug' } = {}): Promise<ReadingsPath> {
  const dir = ptyDir();
  const pty = await startPtyPair(dir);
  const far = await open(pty.farPath, 'w');
  const device = await spawnService('device/main.ts', {
    env: { SERIAL_PATH: pty.devicePath, BACKEND_URL: backendUrl, DEVICE_ID: 'bench', LOG_LEVEL: logLevel },
  });
  await waitFor(async () => (await fetch(`${device.url}/api/ready`)).status === 200, {
    timeout: 15_000,
    what: 'the device ready (pty open, backend connected)',
  });
  let written = 0;
  let scanned = 0;
  let last = { seq: 0, time: 0 };
  return {
    device,
    async write(count) {
      const text = Array.from({ length: count }, () => `n=${++written} temperature_c=21.05\n`).join('');
      const bytes = Buffer.from(text);
      for (let offset = 0; offset < bytes.length;) {
        const { bytesWritten } = await far.write(bytes, offset, Math.min(16_384, bytes.length - offset));
        offset += bytesWritten;
      }
    },
    acked() {
      for (; scanned < device.stdout.length; scanned++) {
        const line = device.stdout[scanned]!;
        if (!line.includes('"readings acknowledged"')) continue;
        const { seq, time } = JSON.parse(line) as { seq: number; time: number };
        if (seq > last.seq) last = { seq, time };
      }
      return last;
    },
    async unacknowledged() {
      const res = await fetch(`${device.url}/api/health`, { signal: AbortSignal.timeout(2000) });
      return ((await res.json()) as { readings: { unacknowledged: number } }).readings.unacknowledged;
    },
    async stop() {
      await device.stop();
      await far.close();
      await pty.stop();
      removePtyDir(dir);
    },
  };
}
