// Messages posted in one turn cross as one array, in order, with their transfers moved; a later turn is another.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel } from 'node:worker_threads';
import { eachMessage, threadPort } from './thread-port.ts';

test('what is posted in one turn arrives as one message, in order; the next turn is another', async () => {
  const { port1, port2 } = new MessageChannel();
  const batches: number[][] = [];
  port2.on('message', (batch: number[]) => batches.push(batch));
  const port = threadPort<number>(port1);
  for (let i = 1; i <= 500; i++) port.post(i);
  await new Promise((resolve) => setImmediate(resolve));
  port.post(501);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(
    batches.map((b) => b.length),
    [500, 1],
  );
  assert.equal(
    batches.flat(),
    Array.from({ length: 501 }, (_, i) => i + 1),
  );
  port1.close();
});

test('transfers move with their batch: the sender keeps nothing of them', async () => {
  const { port1, port2 } = new MessageChannel();
  const received = new Promise<ArrayBuffer[]>((resolve) => port2.once('message', resolve));
  const port = threadPort<ArrayBuffer>(port1);
  const [a, b] = [new ArrayBuffer(10), new ArrayBuffer(20)];
  port.post(a, [a]);
  port.post(b, [b]);
  const batch = await received;
  assert.equal(
    batch.map((bytes) => bytes.byteLength),
    [10, 20],
  );
  assert.equal([a.byteLength, b.byteLength], [0, 0], 'detached here: moved, not copied');
  port1.close();
});

test('eachMessage hands a batch on one message at a time', () => {
  const seen: string[] = [];
  eachMessage((message: string) => seen.push(message))(['a', 'b', 'c']);
  assert.equal(seen, ['a', 'b', 'c']);
});

test.run();
