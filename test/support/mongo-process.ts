// Runs the MongoDB stand-in as a real process (so tests can kill, SIGSTOP and restart it on the same port).
import { spawnProcess, type Spawned } from './spawn-process.ts';
import { waitFor } from './deadline.ts';
import { root } from './spawn-service.ts';

export interface MongoProcess extends Spawned {
  port: number;
  uri: string;
}

export async function startMongoProcess(port: number, database = 'app'): Promise<MongoProcess> {
  const proc = spawnProcess(process.execPath, ['--import', 'tsx', 'dev/mongo-standin.ts', '--port', String(port)], { cwd: root });
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
  return Object.assign(proc, { port, uri: `mongodb://127.0.0.1:${port}/${database}` });
}
