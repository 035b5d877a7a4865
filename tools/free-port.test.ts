import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:net';
import { freePort } from './free-port.ts';

test('ports handed out one after another are all different, and each can be bound', async () => {
  const ports: number[] = [];
  for (let i = 0; i < 200; i++) ports.push(await freePort());
  assert.is(new Set(ports).size, ports.length, 'no port handed out twice');
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(ports.at(-1), '127.0.0.1', resolve);
  });
  await new Promise((resolve) => server.close(resolve));
});

test.run();
