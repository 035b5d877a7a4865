// The hub's summed warnings say what happened, counted: the first at once, the rest summed and flushed on shutdown.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogSink } from '../../test/support/log-sink.ts';
import { createDeviceWarnings } from './device-warnings.ts';

test('each warning words its count; flush() reports what was summed and not yet logged', () => {
  const sink = createLogSink('info', 'backend');
  const warnings = createDeviceWarnings(sink.log, 5000);
  warnings.socket.silent.note({ remoteAddress: '127.0.0.1' });
  warnings.writer.dropped.note({ deviceId: 'dev-1' });
  warnings.writer.dropped.note({ deviceId: 'dev-2' });
  warnings.writer.dropped.note({ deviceId: 'dev-3' });
  const dropped = (n: string, them: string) =>
    `dropped the readings held for ${n} over the bound and closed ${them} with 1013 (the devices resend them)`;
  warnings.presenceFailed.note({ devices: 2 });
  warnings.flush();
  assert.equal(
    sink.entries.map((entry) => entry.msg),
    [
      'closed 1 device socket that sent no hello within 5 s (1008)',
      dropped('1 device socket', 'it'),
      '1 write of device presence failed (the device list may show stale connection states)',
      dropped('2 device sockets', 'them'),
    ],
  );
});

test.run();
