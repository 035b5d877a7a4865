// Fault: the device thread's first write to the database is made while the database is hung. Its MongoDB client,
// left to connect on that write, kept the closed topology of the failed attempt, and every write after failed with
// "Topology is closed" for as long as the backend ran: the device's readings were held, never stored, while
// /api/ready said 200 (seen in test/metrics.test.ts on a loaded machine). It connects explicitly now, and again until
// it works (backend/database/connect-until-closed.ts); this holds it: the readings are stored once the database
// answers again.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnService, type Service } from '../support/spawn-service.ts';
import { startMongoProcess, type MongoProcess } from '../support/mongo-process.ts';
import { sleep, waitFor } from '../support/deadline.ts';
import { stopAll } from '../support/spawn-process.ts';
import { startReadingSender, type ReadingSender } from '../support/reading-sender.ts';

const READINGS = 20;
/** Past the driver's 2 s server selection bound (SHARED_DRIVER_OPTIONS): a first write in it has failed. */
const HUNG_MS = 3500;

let db: MongoProcess;
let backend: Service;
let sender: ReadingSender | undefined;

test.after(async () => {
  sender?.stop();
  db?.signal('SIGCONT');
  await stopAll();
});

test('a device whose first readings meet a hung database: stored once it answers again', async () => {
  db = await startMongoProcess();
  backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: db.uri } });
  await waitFor(async () => (await fetch(`${backend.url}/api/ready`)).status === 200, {
    timeout: 10_000,
    what: 'backend ready',
  });
  db.signal('SIGSTOP');
  sender = startReadingSender(backend.url, { deviceId: 'first' });
  sender.make(READINGS);
  await sleep(HUNG_MS); // deliberately: the first write's attempt to connect must have failed by now
  assert.is(sender.acked, 0, 'nothing acknowledged while the database is hung');
  db.signal('SIGCONT');
  await waitFor(() => sender!.acked === READINGS, {
    timeout: 15_000,
    what: `all ${READINGS} readings acknowledged once the database answers`,
    explain: () => `acked ${sender!.acked}; backend: ${backend.lines.slice(-4).join(' | ')}`,
  });
});

test.run();
