// Runs the MongoDB stand-in as a real process (so tests can kill, SIGSTOP and restart it on the same port).
import { spawnProcess, type Spawned } from './spawn-process.ts';
import { waitFor } from './deadline.ts';
import { root } from './spawn-service.ts';

export interface MongoProcess extends Spawned {
  port: number;
  uri: string;
  /**
   * Waits until a client's streaming hello is open on this process (the stand-in reports it). From then on the
   * driver's monitor is waiting on a socket and notices a kill at once; before it, only at its next check.
   */
  streaming(options?: { timeout?: number }): Promise<void>;
}

/** `extraArgs` go to the stand-in's command line, e.g. `['--hello-delay-ms', '1500']`. */
export async function startMongoProcess(
  port: number,
  database = 'app',
  extraArgs: string[] = [],
): Promise<MongoProcess> {
  const args = ['--import', 'tsx', 'dev/mongo-standin.ts', '--port', String(port), '--report-streams', ...extraArgs];
  const proc = spawnProcess(process.execPath, args, { cwd: root });
  try {
    await waitFor(
      () => {
        if (proc.child.exitCode !== null) throw new Error(`stand-in exited: ${proc.lines.join(' | ')}`);
        return proc.stdout.some((line) => line.includes('mongo stand-in listening'));
      },
      { timeout: 10_000, what: `mongo stand-in on port ${port}` },
    );
  } catch (error) {
    await proc.stop();
    throw error;
  }
  const openStreams = () =>
    proc.stdout.reduce(
      (open, line) => open + (line.startsWith('stream open ') ? 1 : line.startsWith('stream closed ') ? -1 : 0),
      0,
    );
  return Object.assign(proc, {
    port,
    uri: `mongodb://127.0.0.1:${port}/${database}`,
    async streaming({ timeout = 5000 } = {}) {
      await waitFor(() => openStreams() > 0, {
        timeout,
        interval: 5,
        what: `a streaming hello on the stand-in at port ${port}`,
      });
    },
  });
}
