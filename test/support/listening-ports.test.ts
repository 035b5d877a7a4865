import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listeningPorts } from './listening-ports.ts';

test('the JSON start-up record: port and metricsPort; other JSON lines and text before it are passed over', () => {
  const record = { level: 30, name: 'backend', msg: 'backend listening', port: 41234, metricsPort: 41235 };
  const lines = ['{"level":30,"msg":"readiness: database is connected","port":9}', 'not json', JSON.stringify(record)];
  assert.equal(listeningPorts(lines), { port: 41234, metricsPort: 41235 });
  assert.equal(listeningPorts([JSON.stringify({ msg: 'device service listening', port: 5 })]), { port: 5 });
  assert.is(listeningPorts(['{"msg":"backend listening","port":0}']), undefined, 'port 0 is not a bound port');
});

test('the pretty record (local mode), coloured or not, only once the fields after the ports are in', () => {
  const head = '[09:34:03.189] \x1b[32mINFO\x1b[39m (device/14312): \x1b[36mdevice service listening\x1b[39m';
  const port = '    \x1b[35mport\x1b[39m: 35277';
  const metrics = '    metricsPort: 34819';
  assert.is(listeningPorts([head, port]), undefined, 'metricsPort may still be in the pipe');
  assert.equal(listeningPorts([head, port, metrics, '    host: "127.0.0.1"']), { port: 35277, metricsPort: 34819 });
});

test("the frontend's plain line, with its HTTPS and metrics ports when it has them", () => {
  const tail =
    'backend http://127.0.0.1:9, device not monitored (DEVICE_URL is empty); release x; fleet and readings …';
  assert.equal(listeningPorts([`frontend listening on 127.0.0.1 port 3000; ${tail}`]), { port: 3000 });
  assert.equal(
    listeningPorts([`frontend listening on all interfaces port 3000, HTTPS on port 3443; metrics on port 9; ${tail}`]),
    { port: 3000, metricsPort: 9, httpsPort: 3443 },
  );
  assert.equal(listeningPorts([`frontend listening on 127.0.0.1 port 3001 over HTTPS; ${tail}`]), { port: 3001 });
  assert.is(listeningPorts(['frontend: PORT=x is not valid']), undefined);
});

test.run();
