// Fault: a serial device that floods the port: 12 MiB without a line end, then 60 over-long lines. The device drops
// what is over the value limit as it arrives (linear CPU, bounded memory), keeps the lines around it, ends lines at
// CR, LF or CRLF, and sums its warnings.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Service } from '../support/spawn-service.ts';
import { stopAll } from '../support/spawn-process.ts';
import { waitFor } from '../support/deadline.ts';
import { ptyDir, removePtyDir, startPtyPair, type PtyPair } from '../support/pty-pair.ts';
import { jsonLines, startDevice } from '../support/device-services.ts';
import { startFakeBackend, type FakeBackend } from '../support/fake-device-backend.ts';
import { DEVICE_VALUE_MAX_BYTES } from '../../lib/device-protocol.ts';
import { cpuSeconds, mib, rssMiB } from './support/process-stats.ts';

const FLOOD_BYTES = 12 * 1024 * 1024;
// The delimiter parser this replaced spent 2.3 s on 4 MB and 35 s on 16 MB (it concatenated its buffer per chunk).
const CPU_BOUND_S = 4;
const OVERLONG_LINES = 60;
const WARNINGS_BOUND = 3;

const test = suite('device serial flood');
let backend: FakeBackend;
let pty: PtyPair;
let ptys: string;
let spool: string;
let device: Service;

test.before(async () => {
  backend = await startFakeBackend();
  ptys = ptyDir();
  pty = await startPtyPair(ptys);
  spool = mkdtempSync(join(tmpdir(), 'device-flood-spool-'));
  device = await startDevice({
    SERIAL_PATH: pty.devicePath,
    BACKEND_URL: `http://127.0.0.1:${backend.port}`,
    DEVICE_SPOOL_DIR: spool,
  });
  await waitFor(async () => (await fetch(`${device.url}/api/ready`)).status === 200, { what: 'the device ready' });
});

test.after(async () => {
  await stopAll();
  await pty?.stop();
  await backend?.kill();
  if (ptys) removePtyDir(ptys);
  if (spool) rmSync(spool, { recursive: true, force: true });
});

const values = () => backend.stored.map((r) => r.value);

test(`${FLOOD_BYTES / 1024 / 1024} MiB without a line end: under ${CPU_BOUND_S} s of device CPU`, async () => {
  const cpuBefore = cpuSeconds(device.pid);
  pty.write('cr-1\rcr-2\r');
  const chunk = 'x'.repeat(64 * 1024);
  for (let sent = 0; sent < FLOOD_BYTES; sent += chunk.length) pty.write(chunk);
  pty.write('\nafter\r\n');
  await waitFor(() => values().includes('after'), { timeout: 60_000, what: 'the line after the flood stored' });
  const cpu = cpuSeconds(device.pid) - cpuBefore;
  const rss = rssMiB(device.pid);
  console.log(
    `    measured: ${FLOOD_BYTES} bytes without a line end cost the device ${cpu.toFixed(2)} s CPU; RSS ${mib(rss)}`,
  );
  assert.ok(cpu < CPU_BOUND_S, `${cpu.toFixed(2)} s of CPU`);
  assert.equal(values(), ['cr-1', 'cr-2', 'after'], 'CR-ended lines are readings of their own');
});

test(`${OVERLONG_LINES} over-long lines: at most ${WARNINGS_BOUND} summed warnings, the lines after kept`, async () => {
  const long = `${'y'.repeat(DEVICE_VALUE_MAX_BYTES + 1)}\n`;
  for (let i = 0; i < OVERLONG_LINES; i++) pty.write(long);
  pty.write('done\n');
  await waitFor(() => values().includes('done'), { timeout: 10_000, what: 'the line after them stored' });
  device.signal('SIGTERM'); // shutdown reports what the interval held back
  await device.waitExit(10_000);
  const warnings = jsonLines(device).filter((line) => /serial lines? longer than/.test(line.msg));
  const counted = warnings.reduce((sum, w) => sum + (w.count as number), 0);
  console.log(`    measured: ${OVERLONG_LINES + 1} over-long lines in all, ${warnings.length} warnings`);
  assert.is(counted, OVERLONG_LINES + 1, 'every over-long line counted (the flood was one)');
  assert.ok(warnings.length <= WARNINGS_BOUND, `${warnings.length} warnings`);
});

test.run();
