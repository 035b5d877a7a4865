// The main thread tells a socket command from the device thread's own messages by its kind alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isSocketCommand, type FromDeviceThread } from './device-thread-messages.ts';

test("socket commands are told from the thread's own messages", () => {
  const commands: FromDeviceThread[] = [
    { kind: 'send', id: 1, text: 'x' },
    { kind: 'close', id: 1, code: 1000, reason: '' },
    { kind: 'terminate', id: 1 },
    { kind: 'pause', id: 1 },
    { kind: 'resume', id: 1 },
    { kind: 'pong', id: 1 },
    { kind: 'handled', id: 1, frames: 2 },
  ];
  const own: FromDeviceThread[] = [
    { kind: 'ready' },
    { kind: 'heard' },
    { kind: 'counted', counted: { kind: 'lost', reason: 'evicted', count: 1 } },
    { kind: 'closedAll' },
    { kind: 'stopped' },
  ];
  assert.equal(commands.map(isSocketCommand), Array(commands.length).fill(true));
  assert.equal(own.map(isSocketCommand), Array(own.length).fill(false));
  assert.not.ok(isSocketCommand({ kind: 'toString' } as unknown as FromDeviceThread), 'no inherited name counts');
});

test.run();
