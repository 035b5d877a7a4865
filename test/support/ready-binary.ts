// Starts one of Prometheus' own binaries (prometheus, prometheus-alertmanager) and waits for its /-/ready; the
// scratch folder `dir` goes with it when it stops, or when it never got ready.
import { rmSync } from 'node:fs';
import { waitFor } from './deadline.ts';
import { spawnProcess } from './spawn-process.ts';

export async function startReadyBinary(binary: string, args: string[], url: string, dir: string) {
  const proc = spawnProcess(binary, args);
  const stop = async () => {
    await proc.stop(5000);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`${binary} exited: ${proc.lines.slice(-5).join(' | ')}`);
        return (await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) })).status === 200;
      },
      { timeout: 30_000, interval: 100, what: `${binary} ready on ${url}` },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { proc, stop };
}
