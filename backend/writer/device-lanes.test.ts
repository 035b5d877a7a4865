import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createDeviceLanes } from './device-lanes.ts';

test("one write in flight per device, in the order asked; another device's writes never wait", async () => {
  const lanes = createDeviceLanes();
  const order: string[] = [];
  const first = await lanes.acquire('flood');
  const second = lanes.acquire('flood').then((release) => (order.push('flood 2'), release));
  const third = lanes.acquire('flood').then((release) => (order.push('flood 3'), release));
  const honest = await lanes.acquire('honest');
  order.push('honest');
  honest();
  await Promise.resolve();
  assert.equal(order, ['honest'], 'the flood waits for its own write, not for the honest one');
  first();
  first(); // a second release of the same turn changes nothing
  (await second)();
  (await third)();
  assert.equal(order, ['honest', 'flood 2', 'flood 3']);
  assert.is(lanes.busy, 0, 'nothing kept once every write is done');
});

test.run();
