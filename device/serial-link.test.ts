// Real serial I/O: the link reads a socat pseudo-terminal, notices it vanish, and reopens it when it returns.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSerialLink, type SerialLink } from './serial-link.ts';
import { createEmulator } from './emulator.ts';
import { SerialPort } from 'serialport';
import { createBackoff } from './backoff.ts';
import { deviceIdentity } from './device-identity.ts';
import { symlinkSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { createLogSink } from '../test/support/log-sink.ts';
import { ptyDir, removePtyDir, startPtyPair, type PtyPair } from '../test/support/pty-pair.ts';
import { waitFor } from '../test/support/deadline.ts';
import { stopAll } from '../test/support/spawn-process.ts';

interface Ctx {
  dir: string;
  pty?: PtyPair;
  link?: SerialLink;
  lines: string[];
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
    onState: (state) => ctx.states.push({ state, at: performance.now() }),
    onLine: (line) => ctx.lines.push(line),
    log: sink.log,
    backoff: createBackoff({ initialMs: 100, maxMs: 2000 }),
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
  await waitFor(() => lastState(ctx) === 'connected', { timeout: 3000, what: 'serial connected' });
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
  await waitFor(() => ctx.lines.length >= 50, { timeout: 3000, what: '50 lines' });
  assert.equal(ctx.lines, sent);
});

test('pty removed → disconnected within 1 s; recreated → connected within 3 s; reading resumes', async (ctx) => {
  ctx.pty = await startPtyPair(ctx.dir);
  const sink = startLink(ctx, ctx.pty.devicePath);
  await waitFor(() => lastState(ctx) === 'connected', { timeout: 3000, what: 'serial connected' });

  const killedAt = performance.now();
  await ctx.pty.stop();
  const down = await waitFor(() => stateAfter(ctx, 'disconnected', killedAt), {
    timeout: 3000,
    what: 'serial disconnected',
  });
  const downMs = down.at - killedAt;
  assert.ok(downMs < 1000, `disconnected after ${downMs} ms`);
  assert.ok(
    // serialport's hang-up report, or the identity watch's when serialport missed it
    sink.find('unavailable').some((e) => e.level === 40 && /disconnected|is gone/.test(e.reason)),
    'a warning names the disconnect',
  );

  // Away long enough for the backoff to reach its 2 s cap before the port returns.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.is(lastState(ctx), 'disconnected');
  const recreatedAt = performance.now();
  ctx.pty = await startPtyPair(ctx.dir);
  const up = await waitFor(() => stateAfter(ctx, 'connected', recreatedAt), {
    timeout: 5000,
    what: 'serial reconnected',
  });
  const upMs = up.at - recreatedAt;
  assert.ok(upMs < 3000, `reconnected after ${upMs} ms`);
  console.log(
    `  measured: serial pty killed → disconnected in ${downMs.toFixed(0)} ms; ` +
      `recreated → connected in ${upMs.toFixed(0)} ms`,
  );

  ctx.pty.write('after return\n');
  await waitFor(() => ctx.lines.includes('after return'), { timeout: 3000, what: 'line after reconnect' });
});

test('a port that does not exist yet stays disconnected, warns once, then opens when it appears', async (ctx) => {
  const path = `${ctx.dir}/device`;
  const sink = startLink(ctx, path);
  await waitFor(() => sink.find('unavailable').length >= 3, { timeout: 5000, what: 'three failed attempts' });
  assert.is(lastState(ctx), 'disconnected');
  const failures = sink.find('unavailable');
  assert.is(failures.filter((e) => e.level === 40).length, 1, 'only the first failure is a warning');
  assert.match(failures[0]!.reason, /no such file/i);
  ctx.pty = await startPtyPair(ctx.dir);
  await waitFor(() => lastState(ctx) === 'connected', { timeout: 3000, what: 'serial connected once the pty exists' });
  assert.ok(sink.find(`serial port ${path} open`).length === 1);
});

test('the emulator feeds lines through the same link with state "emulator"', async (ctx) => {
  const emulator = createEmulator({ intervalMs: 20, random: () => 0.75 });
  ctx.link = createSerialLink({
    createPort: emulator.createPort,
    path: 'emulator',
    openState: 'emulator',
    onState: (state) => ctx.states.push({ state, at: performance.now() }),
    onLine: (line) => ctx.lines.push(line),
    log: createLogSink().log,
  });
  ctx.link.start();
  try {
    await waitFor(() => ctx.lines.length >= 3, { timeout: 3000, what: 'three emulated lines' });
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
    await waitFor(() => lastState(ctx) === 'connected', { timeout: 3000, what: 'serial connected' });
    first.write('from first\n');
    await waitFor(() => ctx.lines.includes('from first'), { timeout: 3000, what: 'line from the first device' });
    const moved = performance.now();
    symlinkSync(second.devicePath, `${path}.new`);
    renameSync(`${path}.new`, path); // atomically: the path now names the second device
    await waitFor(() => stateAfter(ctx, 'disconnected', moved), {
      timeout: 1000,
      what: 'disconnected after the path moved',
    });
    await waitFor(() => stateAfter(ctx, 'connected', moved), { timeout: 3000, what: 'reconnected to the new device' });
    second.write('from second\n');
    await waitFor(() => ctx.lines.includes('from second'), { timeout: 3000, what: 'line from the second device' });
    await first.stop();
    await second.stop();
  } finally {
    removePtyDir(secondDir);
  }
});

test.run();
