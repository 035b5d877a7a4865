// A thread for backend/device-thread/kept-thread.test.ts that counts its starts in `workerData.starts` (a file): the second start
// fails before it is ready (exit code 6); the others are ready, answer `ping` with `pong`, and end on `die` (5).
import { readFileSync, writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const starts = Number(readFileSync(workerData.starts, 'utf8') || '0') + 1;
writeFileSync(workerData.starts, String(starts));
if (starts === 2) process.exit(6);
// Messages come and go in arrays, one per turn (backend/device-thread/thread-port.ts).
parentPort.on('message', (batch) => {
  for (const message of batch) {
    if (message.kind === 'die') process.exit(5);
    if (message.kind === 'ping') parentPort.postMessage([{ kind: 'pong', starts }]);
  }
});
parentPort.postMessage([{ kind: 'ready' }]);
