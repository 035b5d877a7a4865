// Test helper: a real pseudo-terminal pair made by socat — the device opens one end, the test writes the other.
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnProcess, type Spawned } from './spawn-process.ts';
import { waitFor } from './deadline.ts';

export interface PtyPair {
  /** The end the device service opens (SERIAL_PATH). */
  devicePath: string;
  /** The end the test writes lines into, as the sensor would. */
  farPath: string;
  socat: Spawned;
  /** Writes text to the far end (kept open between writes). */
  write(text: string): void;
  /** SIGTERM socat: both ends vanish, as when a USB adapter is unplugged. */
  stop(): Promise<void>;
}

/** A fresh temp dir for the links (reuse one to recreate a pair at the same paths). */
export const ptyDir = () => mkdtempSync(join(tmpdir(), 'device-pty-'));

export async function startPtyPair(dir: string): Promise<PtyPair> {
  const devicePath = join(dir, 'device');
  const farPath = join(dir, 'far');
  // socat -d -d prints "starting data transfer loop" once both ptys exist and the links are made.
  const socat = spawnProcess('socat', [
    '-d',
    '-d',
    `pty,raw,echo=0,link=${devicePath}`,
    `pty,raw,echo=0,link=${farPath}`,
  ]);
  await waitFor(
    () => {
      if (socat.child.exitCode !== null) throw new Error(`socat exited: ${socat.lines.join(' | ')}`);
      return (
        socat.lines.some((line) => line.includes('starting data transfer loop')) &&
        existsSync(devicePath) &&
        existsSync(farPath)
      );
    },
    { timeout: 5000, what: 'socat pty pair' },
  );
  let fd: number | undefined;
  return {
    devicePath,
    farPath,
    socat,
    write(text) {
      fd ??= openSync(farPath, 'w');
      writeSync(fd, text);
    },
    async stop() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      await socat.stop();
    },
  };
}

export const removePtyDir = (dir: string) => rmSync(dir, { recursive: true, force: true });
