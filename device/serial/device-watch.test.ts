// The identity watch's decision: the same device is no news; none, or another, is a reason to reopen.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deviceChange, watchDevice } from './device-watch.ts';
import { sleep, waitFor } from '../../test/support/deadline.ts';

test('the device it was opened as, still there, is no change', () => {
  assert.is(deviceChange('/dev/ttyUSB0', 'usb-1a86-0', 'usb-1a86-0'), undefined);
  assert.is(deviceChange('/dev/ttyUSB0', undefined, undefined), undefined);
});

test('a device gone, or another at the same path, is a reason naming the path', () => {
  assert.is(deviceChange('/dev/ttyUSB0', 'usb-1a86-0', undefined), '/dev/ttyUSB0 is gone');
  assert.is(deviceChange('/dev/ttyUSB0', 'usb-1a86-0', 'usb-0403-1'), '/dev/ttyUSB0 is now another device');
  assert.is(deviceChange('/dev/ttyUSB0', undefined, 'usb-0403-1'), '/dev/ttyUSB0 is now another device');
});

test('the watch reports a change with its reason, and reports nothing once stopped', async () => {
  let at: string | undefined = 'usb-1a86-0';
  const reasons: string[] = [];
  const stop = watchDevice({ path: '/dev/x', identify: () => at, watchMs: 5, onChange: (r) => reasons.push(r) });
  at = undefined;
  await waitFor(() => reasons.length >= 2, { what: 'the change reported at each check' });
  stop();
  const seen = reasons.length;
  at = 'usb-0403-1';
  await sleep(30); // six intervals: a watch still running would have reported the other device
  assert.equal([...new Set(reasons)], ['/dev/x is gone']);
  assert.is(reasons.length, seen, 'nothing after stop');
});

test.run();
