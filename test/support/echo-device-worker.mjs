// A stand-in device thread for backend/device-thread/device-thread.test.ts: it answers each text frame with the same text;
// `crash` ends the thread (exit code 3), `hang` loops for ever; `flood` sends 4 MiB back, more than a peer that reads nothing may leave.
// It handles no frame (device-relay.ts's read budget) until `take` says so: then every frame, from then on too.
import { existsSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

const answers = { stop: 'stopped', closeAll: 'closedAll', probe: 'probed' };
const unhandled = new Map();
let taking = false;

// Messages come and go in arrays, one per turn (backend/device-thread/thread-port.ts).
parentPort.on('message', (batch) => batch.forEach(answer));

function answer(event) {
  if (answers[event.kind]) return parentPort.postMessage([{ kind: answers[event.kind] }]);
  if (event.kind !== 'message') return;
  const text = event.binary ? `binary ${event.bytes.byteLength}` : Buffer.from(event.bytes).toString('utf8');
  if (text === 'crash') process.exit(3);
  // Stuck in a loop: alive, never answering again (backend/device-thread/thread-answers.ts).
  if (text === 'hang') for (;;);
  unhandled.set(event.id, (unhandled.get(event.id) ?? 0) + 1);
  taking ||= text === 'take';
  if (taking) {
    parentPort.postMessage([...unhandled].map(([id, frames]) => ({ kind: 'handled', id, frames })));
    unhandled.clear();
  }
  const copies = text === 'flood' ? 64 : 1;
  for (let i = 0; i < copies; i++) {
    parentPort.postMessage([{ kind: 'send', id: event.id, text: text === 'flood' ? 'x'.repeat(65536) : text }]);
  }
}
// ECHO_READY_GATE names a file: the thread says it is ready only once that file exists (a slow start, ended by the test).
const gate = process.env.ECHO_READY_GATE;
while (gate && !existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 10));
parentPort.postMessage([{ kind: 'ready' }]);
