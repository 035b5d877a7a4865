// Runs the MongoDB stand-in as a real process (so tests can kill, SIGSTOP and restart it on the same port).
import { spawnProcess, type Spawned } from './spawn-process.ts';
import { waitFor } from './deadline.ts';
import { root } from './spawn-service.ts';
import { serviceArgs } from './compiled-services.ts';

export interface MongoProcess extends Spawned {
  port: number;
  uri: string;
  /**
   * Waits until a client's streaming hello is open on this process (the stand-in reports it). From then on the
   * driver's monitor is waiting on a socket and notices a kill at once; before it, only at its next check.
   */
  streaming(options?: { timeout?: number }): Promise<void>;
}

/**
 * `port` 0 (the default): the stand-in binds a free port itself and names it in its start-up line; name one only
 * to restart it where it was. `extraArgs` go to the stand-in's command line, e.g. `['--hello-delay-ms', '1500']`.
 */
export async function startMongoProcess(port = 0, database = 'app', extraArgs: string[] = []): Promise<MongoProcess> {
  const entry = await serviceArgs(root, 'dev/mongo-standin.ts'); // compiled: no TypeScript compiler to load
  const args = [...entry, '--port', String(port), '--report-streams', ...extraArgs];
  const proc = spawnProcess(process.execPath, args, { cwd: root });
  try {
    port = await waitFor(
      () => {
        if (proc.child.exitCode !== null) throw new Error(`stand-in exited: ${proc.lines.join(' | ')}`);
        return boundPort(proc.stdout);
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

/** The port in `mongo stand-in listening on mongodb://HOST:PORT (…)`, once that line is out. */
function boundPort(stdout: string[]): number | undefined {
  const prefix = 'mongo stand-in listening on ';
  const line = stdout.find((l) => l.startsWith(prefix));
  return line ? Number(new URL(line.slice(prefix.length).split(' ')[0]!).port) : undefined;
}
