// The heap a process still holds after a full garbage collection, asked of its inspector (the process runs with
// --inspect=127.0.0.1:<port>). Resident memory alone cannot tell a leak from garbage V8 has not yet collected.
import { once } from 'node:events';
import WebSocket from 'ws';
import { withDeadline } from '../support/deadline.ts';

const DEADLINE_MS = 10_000;

interface InspectorTarget {
  webSocketDebuggerUrl: string;
}

/** Sends one inspector command on an open socket and resolves with its result. */
function command(socket: WebSocket, id: number, method: string, params = {}): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData) => {
      const reply = JSON.parse(String(data)) as { id?: number; result?: Record<string, unknown>; error?: unknown };
      if (reply.id !== id) return;
      socket.off('message', onMessage);
      if (reply.error) reject(new Error(`${method}: ${JSON.stringify(reply.error)}`));
      else resolve(reply.result ?? {});
    };
    socket.on('message', onMessage);
    socket.send(JSON.stringify({ id, method, params }));
  });
}

/** What the process keeps, in MiB: its JavaScript heap, and memory held outside it (buffers, native objects). */
export interface KeptMemory {
  heapMiB: number;
  externalMiB: number;
}

async function measure(inspectPort: number): Promise<KeptMemory> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as InspectorTarget[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${inspectPort}`);
  const socket = new WebSocket(url);
  try {
    await once(socket, 'open');
    await command(socket, 1, 'HeapProfiler.collectGarbage');
    const expression = 'JSON.stringify(process.memoryUsage())';
    const { result } = await command(socket, 2, 'Runtime.evaluate', { expression, returnByValue: true });
    const usage = JSON.parse(String((result as { value?: unknown }).value)) as NodeJS.MemoryUsage;
    return { heapMiB: usage.heapUsed / 2 ** 20, externalMiB: usage.external / 2 ** 20 };
  } finally {
    socket.close();
  }
}

/** The memory a process keeps right after a full collection. */
export function keptAfterGc(inspectPort: number): Promise<KeptMemory> {
  return withDeadline(measure(inspectPort), DEADLINE_MS, 'the inspector to collect garbage');
}
