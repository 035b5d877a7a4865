// The local stack's database: MONGODB_URI if given, else a real mongod from PATH in a temp dir, else the stand-in.
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { delimiter, join } from 'node:path';
import { redactUrl } from '../../lib/redact-url.ts';
import type { StackChild } from './child.ts';
import { stackError } from './error.ts';
import { entryArgs } from '../../tools/node-entry.ts';

export interface Database {
  uri: string;
  /** The one line that says which database this is. */
  note: string;
  child?: StackChild;
  /** Removes the mongod's temp dir (after the child has stopped). */
  cleanup(): Promise<void>;
}

export interface DatabaseOptions {
  uri: string | undefined;
  port: number;
  path: string | undefined;
  deadlineMs: number;
  start: (name: string, command: string, args: string[]) => StackChild;
}

const DB_NAME = 'app';

export async function startDatabase({ uri, port, path, deadlineMs, start }: DatabaseOptions): Promise<Database> {
  if (uri)
    return { uri, note: `database: MONGODB_URI from the environment (${redactUrl(uri)})`, cleanup: async () => {} };
  const local = `mongodb://127.0.0.1:${port}/${DB_NAME}`;
  const mongod = findOnPath('mongod', path);
  if (mongod) {
    const dir = await mkdtemp(join(tmpdir(), 'stack-mongod-'));
    const child = start('database', mongod, ['--dbpath', dir, '--port', String(port), '--bind_ip', '127.0.0.1']);
    const cleanup = () => rm(dir, { recursive: true, force: true });
    await waitForPort(child, port, deadlineMs).catch(async (error) => {
      await child.stop(5000);
      await cleanup();
      throw error;
    });
    return {
      uri: local,
      child,
      note: `database: mongod from ${mongod} at ${local}, data in ${dir} (removed on exit)`,
      cleanup,
    };
  }
  const child = start('database', process.execPath, [
    ...entryArgs('dev/mongo-standin.ts'),
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
  ]);
  await waitForPort(child, port, deadlineMs).catch(async (error) => {
    await child.stop(5000);
    throw error;
  });
  return {
    uri: local,
    child,
    note:
      `database: no MONGODB_URI and no mongod on PATH, so the MongoDB stand-in answers at ${local} — ` +
      'a stand-in, not a database: it keeps data in memory only, lost when the stack stops',
    cleanup: async () => {},
  };
}

export function findOnPath(name: string, path = ''): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/** Resolves once something accepts TCP connections on the port; fails if the child exits or the deadline passes. */
async function waitForPort(child: StackChild, port: number, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (child.exit)
      throw stackError(
        child.name,
        `exited (code ${child.exit.code ?? child.exit.signal}) before accepting connections`,
        child.lastLines(),
      );
    if (await accepts(port)) return;
    await sleep(100);
  }
  throw stackError(child.name, `did not accept connections on port ${port} within ${deadlineMs} ms`, child.lastLines());
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}
