// A full garbage collection in another Node process, asked through its inspector (started with
// `--inspect=127.0.0.1:PORT`): a memory bound then measures what the process keeps, not garbage V8 has yet to
// collect. V8 collects that by itself only once the process looks idle to it, which on a machine whose cores are
// busy with other work may take longer than any bound waits.
import WebSocket from 'ws';
import { withDeadline } from '../../../lib/with-deadline.ts';

const TIMEOUT_MS = 10_000;

/** NODE_OPTIONS for a process `collectGarbage(port)` can reach (the caller's own options kept). */
export const inspectorOptions = (port: number) =>
  [process.env.NODE_OPTIONS, `--inspect=127.0.0.1:${port}`].filter(Boolean).join(' ');

/** What Node's inspector itself prints on stderr (listening, a session attached and ended): not the service's. */
const INSPECTOR_LINE =
  /^(Debugger (listening|attached|ending)|For help, see: https:\/\/nodejs\.org\/en\/docs\/inspector)/;

export const withoutInspectorLines = (lines: string[]) => lines.filter((line) => !INSPECTOR_LINE.test(line));

/** Runs HeapProfiler.collectGarbage in the process whose inspector listens on `port`; resolves once it is done. */
export async function collectGarbage(port: number): Promise<void> {
  const targets = (await (
    await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(TIMEOUT_MS) })
  ).json()) as { webSocketDebuggerUrl: string }[];
  if (!targets[0]) throw new Error(`the inspector on port ${port} lists no target`);
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no full GC within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      socket.once('error', reject);
      socket.once('open', () => socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })));
      socket.on('message', (data) => {
        const reply = JSON.parse(String(data)) as { id?: number; error?: { message: string } };
        if (reply.id !== 1) return;
        if (reply.error) reject(new Error(`HeapProfiler.collectGarbage: ${reply.error.message}`));
        else resolve();
      });
    });
  } finally {
    clearTimeout(timer);
    await closeSession(socket);
  }
}

/** Closes the inspector session and waits until it is closed: its socket then no longer counts among the handles. */
async function closeSession(socket: WebSocket): Promise<void> {
  if (socket.readyState === WebSocket.CLOSED) return;
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.close();
  await withDeadline(closed, TIMEOUT_MS, 'the inspector session to close').catch(() => socket.terminate());
}
