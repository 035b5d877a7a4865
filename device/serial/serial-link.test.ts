// Real serial I/O: the link reads a socat pseudo-terminal, notices it vanish, and reopens it when it returns. How
// fast it notices is the fault suite's to bound (test/faults/device-serial-link.fault.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSerialLink, type SerialLink } from './serial-link.ts';
import { createEmulator } from './emulator.ts';
import { SerialPort, SerialPortMock } from 'serialport';
import { createBackoff } from '../../lib/backoff.ts';
import { deviceIdentity } from '../device-identity.ts';
import { symlinkSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { createLogSink } from '../../test/support/log-sink.ts';
import { ptyDir, removePtyDir, startPtyPair, type PtyPair } from '../../test/support/pty-pair.ts';
import { waitFor } from '../../test/support/deadline.ts';
import { stopAll } from '../../test/support/spawn-process.ts';

interface Ctx {
  dir: string;
  pty?: PtyPair;
  link?: SerialLink;
  lines: string[];
  /** Each state reported, with its index: `stateAfter` finds a change after a given point without a clock. */
  states: Array<{ state: string; at: number }>;
}

const test = suite<Ctx>('serial link', { dir: '', lines: [], states: [] });

test.before.each((ctx) => {
  ctx.dir = ptyDir();
  ctx.lines = [];
  ctx.states = [];
  ctx.pty = undefined;
  ctx.link = undefined;
});

test.after.each(async (ctx) => {
  await ctx.link?.close();
  await stopAll();
  removePtyDir(ctx.dir);
});

// As device/main.ts builds it for a real port: with the identity watch, the guard against serialport missing a
// hang-up (it sometimes spins on the hung-up tty's 0-byte reads instead of reporting it: 1 kill in 40 here).
function startLink(ctx: Ctx, path: string, sink = createLogSink()) {
  ctx.link = createSerialLink({
    createPort: () => new SerialPort({ path, baudRate: 9600, autoOpen: false }),
    path,
    openState: 'connected',
    onState: (state) => ctx.states.push({ state, at: ctx.states.length }),
    onLine: (line) => ctx.lines.push(line),
    log: sink.log,
    // Retries 8, 15, 30, 38 … ms apart: the tests wait on events, not on the production delays.
    backoff: createBackoff({ initialMs: 10, maxMs: 50, random: () => 0.5 }),
    identify: deviceIdentity,
  });
  ctx.link.start();
  return sink;
}

const lastState = (ctx: Ctx) => ctx.states.at(-1)?.state ?? 'disconnected';
const stateAfter = (ctx: Ctx, state: string, since: number) =>
  ctx.states.find((s) => s.state === state && s.at >= since);

test('lines written on the far end arrive in order, CRLF or LF, blank lines skipped', async (ctx) => {
  ctx.pty = await startPtyPair(ctx.dir);
  startLink(ctx, ctx.pty.devicePath);
  await waitFor(() => lastState(ctx) === 'connected', { timeout: 5000, what: 'serial connected' });
  const sent = Array.from({ length: 50 }, (_, i) => `reading ${i + 1}`);
  ctx.pty.write(
    sent
      .slice(0, 25)
      .map((l) => `${l}\r\n`)
      .join('') + '\n',
  );
  ctx.pty.write(
    sent
      .slice(25)
      .map((l) => `${l}\n`)
      .join(''),
  );
  await waitFor(() => ctx.lines.length >= 50, { timeout: 5000, what: '50 lines' });
  assert.equal(ctx.lines, sent);
});

for (const [how, remove] of [
  ['socat stopped (links removed)', (pty: PtyPair) => pty.stop()],
  [
    'socat killed (links left dangling)',
    async (pty: PtyPair) => {
      pty.socat.signal('SIGKILL');
      await pty.socat.waitExit(5000);
      await pty.stop();
    },
  ],
] as const) {
  test(`pty gone, ${how}: disconnected, warned once, retrying; recreated: connected, reading resumes`, async (ctx) => {
    ctx.pty = await startPtyPair(ctx.dir);
    const sink = startLink(ctx, ctx.pty.devicePath);
    await waitFor(() => lastState(ctx) === 'connected', { timeout: 5000, what: 'serial connected' });
    ctx.pty.write('before\n');
    await waitFor(() => ctx.lines.includes('before'), { timeout: 5000, what: 'a line before' });

    const removed = ctx.states.length;
    await remove(ctx.pty);
    await waitFor(() => stateAfter(ctx, 'disconnected', removed), { timeout: 5000, what: 'serial disconnected' });
    const failures = () => sink.find('unavailable');
    await waitFor(() => failures().length >= 4, { timeout: 5000, what: 'four attempts while the pty is gone' });
    assert.is(lastState(ctx), 'disconnected');
    // serialport's hang-up report, or the identity watch's when serialport missed it
    assert.match(failures()[0]!.reason, /disconnected|is gone/, 'the warning names the disconnect');
    assert.equal(
      failures().map((e) => e.level),
      [40, ...Array(failures().length - 1).fill(20)],
      'one warning, then debug lines',
    );

    const recreated = ctx.states.length;
    ctx.pty = await startPtyPair(ctx.dir);
    await waitFor(() => stateAfter(ctx, 'connected', recreated), { timeout: 5000, what: 'serial reconnected' });
    ctx.pty.write('after return\n');
    await waitFor(() => ctx.lines.includes('after return'), { timeout: 5000, what: 'line after reconnect' });
    assert.equal(ctx.lines, ['before', 'after return']);
  });
}

test('a port that does not exist yet stays disconnected, warns once, then opens when it appears', async (ctx) => {
  const path = `${ctx.dir}/device`;
  const sink = startLink(ctx, path);
  await waitFor(() => sink.find('unavailable').length >= 3, { timeout: 5000, what: 'three failed attempts' });
  assert.is(lastState(ctx), 'disconnected');
  const failures = sink.find('unavailable');
  assert.is(failures.filter((e) => e.level === 40).length, 1, 'only the first failure is a warning');
  assert.match(failures[0]!.reason, /no such file/i);
  ctx.pty = await startPtyPair(ctx.dir);
  await waitFor(() => lastState(ctx) === 'connected', { timeout: 5000, what: 'serial connected once the pty exists' });
  assert.ok(sink.find(`serial port ${path} open`).length === 1);
});

test('the emulator feeds lines through the same link with state "emulator"', async (ctx) => {
  const emulator = createEmulator({ intervalMs: 20, random: () => 0.75 });
  ctx.link = createSerialLink({
    createPort: emulator.createPort,
    path: 'emulator',
    openState: 'emulator',
    onState: (state) => ctx.states.push({ state, at: ctx.states.length }),
    onLine: (line) => ctx.lines.push(line),
    log: createLogSink().log,
  });
  ctx.link.start();
  try {
    await waitFor(() => ctx.lines.length >= 3, { timeout: 5000, what: 'three emulated lines' });
    assert.is(lastState(ctx), 'emulator');
    assert.equal(ctx.lines.slice(0, 2), ['temperature_c=21.05', 'temperature_c=21.10']);
    await ctx.link.close();
    assert.is(lastState(ctx), 'disconnected');
  } finally {
    emulator.stop();
  }
});

test('a path that now names another device is reopened, even though the old device still reads fine', async (ctx) => {
  // serialport spins on 0-byte reads from a hung-up tty and never reports it; the identity watch is the guard.
  // Here the old pty stays healthy and silent, so only the watch can notice that the path moved.
  const first = await startPtyPair(ctx.dir);
  const secondDir = ptyDir();
  try {
    const second = await startPtyPair(secondDir);
    const path = join(ctx.dir, 'sensor');
    symlinkSync(first.devicePath, path);
    startLink(ctx, path);
    await waitFor(() => lastState(ctx) === 'connected', { timeout: 5000, what: 'serial connected' });
    first.write('from first\n');
    await waitFor(() => ctx.lines.includes('from first'), { timeout: 5000, what: 'line from the first device' });
    const moved = ctx.states.length;
    symlinkSync(second.devicePath, `${path}.new`);
    renameSync(`${path}.new`, path); // atomically: the path now names the second device
    await waitFor(() => stateAfter(ctx, 'disconnected', moved), {
      timeout: 5000,
      what: 'disconnected after the path moved',
    });
    await waitFor(() => stateAfter(ctx, 'connected', moved), { timeout: 5000, what: 'reconnected to the new device' });
    second.write('from second\n');
    await waitFor(() => ctx.lines.includes('from second'), { timeout: 5000, what: 'line from the second device' });
    await first.stop();
    await second.stop();
  } finally {
    removePtyDir(secondDir);
  }
});

test('CR, LF and CRLF end lines; lines over maxLineBytes are dropped with summed warnings', async (ctx) => {
  const path = '/dev/serial-link-test-long';
  SerialPortMock.binding.createPort(path, { echo: false, record: false });
  let port: SerialPortMock | undefined;
  const sink = createLogSink();
  ctx.link = createSerialLink({
    createPort: () => (port = new SerialPortMock({ path, baudRate: 9600, autoOpen: false })),
    path,
    openState: 'connected',
    onState: (state) => ctx.states.push({ state, at: ctx.states.length }),
    onLine: (line) => ctx.lines.push(line),
    log: sink.log,
    maxLineBytes: 10,
    warnIntervalMs: 60_000,
  });
  ctx.link.start();
  await waitFor(() => lastState(ctx) === 'connected', { timeout: 5000, what: 'mock port open' });
  port!.port!.emitData('short\r0123456789\r\n0123456789a\né123456789\n');
  port!.port!.emitData(`${'x'.repeat(20)}\n`.repeat(60) + 'last\n');
  await waitFor(() => ctx.lines.includes('last'), { timeout: 5000, what: 'the last line' });
  assert.equal(ctx.lines, ['short', '0123456789', 'last'], 'bytes are counted, not characters: é is two');
  await ctx.link.close(); // reports what the interval held back
  ctx.link = undefined;
  const warnings = sink.find('longer than 10 bytes');
  assert.equal(
    warnings.map((w) => [w.level, w.msg, w.count, w.total]),
    [
      [40, 'dropped 1 serial line longer than 10 bytes', 1, 1],
      [40, 'dropped 61 serial lines longer than 10 bytes', 61, 62],
    ],
    '62 over-long lines, two warnings',
  );
});

test.run();
