// The backend link against a real WebSocket server: frames of readings, acks, loss and return, silence, shutdown.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBackendLink, type BackendLink, type BackendLinkOptions } from './backend-link.ts';
import { createBackoff } from '../../lib/backoff.ts';
import { openReadingSpool, type ReadingSpool } from '../spool/reading-spool.ts';
import {
  DEVICE_MAX_PAYLOAD,
  DEVICE_MESSAGE_RATE_UNSAID,
  DEVICE_UNACKED_IN_FLIGHT_UNSAID,
  paceUnder,
  readingsOf,
  type DeviceMessage,
} from '../../lib/device-protocol.ts';
import { createLogSink, type LogSink } from '../../test/support/log-sink.ts';
import { startFakeBackend, type FakeBackend } from '../../test/support/fake-device-backend.ts';
import { waitFor } from '../../test/support/deadline.ts';

interface Ctx {
  backend?: FakeBackend;
  link?: BackendLink;
  spool?: ReadingSpool;
  sink: LogSink;
  dir: string;
  /** Each state reported, with its index: `stateAfter` finds a change after a given point without a clock. */
  states: Array<{ state: string; at: number; reason?: string | undefined }>;
}

const test = suite<Ctx>('backend link', { states: [], dir: '', sink: createLogSink() });

test.before.each((ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'backend-link-'));
  ctx.sink = createLogSink();
});

test.after.each(async (ctx) => {
  await ctx.link?.close();
  await ctx.backend?.kill();
  ctx.spool?.close();
  rmSync(ctx.dir, { recursive: true, force: true });
  ctx.link = ctx.backend = ctx.spool = undefined;
  ctx.states = [];
});

/**
 * A fast backoff with its jitter pinned (8, 15, 30, 38, 38 … ms): these tests wait on events, not on the production
 * retry delays, which device/backoff.test.ts covers.
 */
const quickBackoff = () => createBackoff({ initialMs: 10, maxMs: 50, random: () => 0.5 });

function openSpool(ctx: Ctx, session = 'session-1', dir = ctx.dir) {
  ctx.spool?.close();
  ctx.spool = openReadingSpool({ dir, session, deviceId: 'device-1', maxBytes: 64 << 20, log: ctx.sink.log });
  return ctx.spool;
}

function startLink(ctx: Ctx, url: string, options: Partial<BackendLinkOptions> = {}) {
  const spool = ctx.spool ?? openSpool(ctx);
  ctx.link = createBackendLink({
    url,
    deviceId: 'dev-1',
    spool,
    log: ctx.sink.log,
    onState: (state, reason) => ctx.states.push({ state, at: ctx.states.length, reason }),
    backoff: quickBackoff(),
    ...options,
  });
  ctx.link.start();
  return ctx.link;
}

const send = (ctx: Ctx, value: string) => {
  ctx.spool!.push(value);
  ctx.link!.deliver();
};
const lastState = (ctx: Ctx) => ctx.states.at(-1)?.state ?? 'disconnected';
const stateAfter = (ctx: Ctx, state: string, since: number) =>
  ctx.states.find((s) => s.state === state && s.at >= since);
const connected = (ctx: Ctx, timeout = 5000) =>
  waitFor(() => lastState(ctx) === 'connected', { timeout, what: 'backend connected' });
/** Every reading the fake received, resends included, as `session:seq`. */
const receivedReadings = (messages: DeviceMessage[]) =>
  messages.flatMap((m) => (m.type === 'hello' ? [] : readingsOf(m).map((r) => `${m.session}:${r.seq}`)));
const frames = (backend: FakeBackend) => backend.received.filter((m) => m.type !== 'hello');

test('says hello, sends readings in order, and forgets them once acked', async (ctx) => {
  ctx.backend = await startFakeBackend();
  startLink(ctx, ctx.backend.url);
  await connected(ctx);
  for (let i = 1; i <= 20; i++) send(ctx, `v${i}`);
  await waitFor(() => ctx.backend!.stored.length === 20 && ctx.spool!.size === 0, {
    timeout: 5000,
    what: '20 stored and acked',
  });
  assert.equal(ctx.backend.received[0], { type: 'hello', deviceId: 'dev-1', session: 'session-1', backlog: 0 });
  // Each frame reports the backlog as it was built; once all is acked a hello on the same socket reports 0.
  await waitFor(() => ctx.backend!.received.at(-1)?.backlog === 0, { timeout: 5000, what: 'a backlog of 0 reported' });
  assert.equal(ctx.backend.received.at(-1), { type: 'hello', deviceId: 'dev-1', session: 'session-1', backlog: 0 });
  assert.ok(
    frames(ctx.backend).every((m) => m.backlog! >= readingsOf(m).length),
    'a frame counts its own readings',
  );
  assert.equal(
    ctx.backend.stored.map((r) => r.value),
    Array.from({ length: 20 }, (_, i) => `v${i + 1}`),
  );
  assert.ok(
    frames(ctx.backend).every((m) => m.type === 'readings' && m.deviceId === 'dev-1' && m.session === 'session-1'),
  );
  assert.is(ctx.spool!.stats().unacknowledged, 0);
  // At debug, each ack is one line saying what it covered: when each reading was known stored.
  const acked = ctx.sink.find('readings acknowledged');
  assert.ok(acked.length >= 1 && acked.length === ctx.backend.acks.length, `${acked.length} ack lines`);
  assert.equal(acked.at(-1), { ...acked.at(-1), level: 20, session: 'session-1', seq: 20, unacknowledged: 0 });
  assert.is(
    acked.reduce((sum, line) => sum + line.forgotten, 0),
    20,
  );
});

test(
  'backend killed → disconnected by the close, retrying while away; ' +
    'back → connected; the gap arrives in order, once',
  async (ctx) => {
    ctx.backend = await startFakeBackend();
    // Pings far apart: only the socket's close can show the kill here, not a heartbeat missed.
    startLink(ctx, ctx.backend.url, { pingIntervalMs: 60_000, silenceLimitMs: 120_000 });
    await connected(ctx);
    send(ctx, 'before-1');
    send(ctx, 'before-2');
    await waitFor(() => ctx.spool!.size === 0, { timeout: 5000, what: 'first readings acked' });

    const killed = ctx.states.length;
    await ctx.backend.kill();
    await waitFor(() => stateAfter(ctx, 'disconnected', killed), { timeout: 5000, what: 'disconnected' });
    assert.is(ctx.sink.find('backend socket closed').length, 1);
    assert.is(ctx.sink.find('silent for').length, 0, 'noticed by the close, not by silence');

    for (let i = 1; i <= 5; i++) send(ctx, `away-${i}`);
    const retries = () => ctx.sink.find('backend socket unavailable');
    await waitFor(() => retries().length >= 5, { timeout: 5000, what: 'five attempts while the backend is away' });
    assert.is(ctx.spool!.size, 5, 'kept while away');
    assert.equal(
      [...ctx.sink.find('backend socket closed'), ...retries()].map((e) => e.level),
      [40, ...Array(retries().length).fill(20)],
      'one warning (the close), then debug lines',
    );
    const restarted = ctx.states.length;
    await ctx.backend.restart();
    await waitFor(() => stateAfter(ctx, 'connected', restarted), { timeout: 5000, what: 'reconnected' });
    send(ctx, 'after-1');
    await waitFor(() => ctx.backend!.stored.length === 8 && ctx.spool!.size === 0, {
      timeout: 5000,
      what: 'all 8 stored',
    });
    assert.equal(
      ctx.backend.stored.map((r) => r.value),
      ['before-1', 'before-2', 'away-1', 'away-2', 'away-3', 'away-4', 'away-5', 'after-1'],
    );
    assert.equal(
      ctx.backend.stored.map((r) => r.seq),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    assert.is(ctx.sink.find('backend socket connected').at(-1)!.unacknowledged, 5, 'the gap resent on reconnecting');
  },
);

test('unacked readings are resent after a reconnect; the backend stores each once', async (ctx) => {
  ctx.backend = await startFakeBackend();
  ctx.backend.acking = false;
  startLink(ctx, ctx.backend.url);
  await connected(ctx);
  for (let i = 1; i <= 3; i++) send(ctx, `v${i}`);
  await waitFor(() => ctx.backend!.stored.length === 3, { timeout: 5000, what: '3 received' });
  assert.is(ctx.spool!.size, 3, 'kept until acked');
  await ctx.backend.kill();
  ctx.backend.acking = true;
  const since = ctx.states.length;
  await ctx.backend.restart();
  await waitFor(() => stateAfter(ctx, 'connected', since), { timeout: 5000, what: 'reconnected' });
  await waitFor(() => ctx.spool!.size === 0, { timeout: 5000, what: 'resent readings acked' });
  assert.equal(receivedReadings(ctx.backend.received), [
    'session-1:1',
    'session-1:2',
    'session-1:3',
    'session-1:1',
    'session-1:2',
    'session-1:3',
  ]);
  assert.equal(
    ctx.backend.stored.map((r) => r.seq),
    [1, 2, 3],
  );
});

test('closed with 1013 (the backend dropped what it held): reconnects and resends from the oldest', async (ctx) => {
  ctx.backend = await startFakeBackend();
  ctx.backend.acking = false;
  startLink(ctx, ctx.backend.url);
  await connected(ctx);
  for (let i = 1; i <= 4; i++) send(ctx, `v${i}`);
  await waitFor(() => receivedReadings(ctx.backend!.received).length === 4, { what: '4 received' });
  const connections = ctx.backend.authorizations.length;
  ctx.backend.acking = true;
  ctx.backend.closeAll(1013);
  await waitFor(() => ctx.spool!.size === 0, { timeout: 5000, what: 'resent and acked' });
  assert.is(ctx.backend.authorizations.length, connections + 1, 'one reconnect');
  assert.equal(ctx.backend.closeCodes, [1013]);
  assert.equal(receivedReadings(ctx.backend.received).slice(4), [
    'session-1:1',
    'session-1:2',
    'session-1:3',
    'session-1:4',
  ]);
  const [closed] = ctx.sink.find('backend socket closed');
  assert.equal([closed!.code, closed!.unacknowledged, closed!.level], [1013, 4, 40]);
  assert.match(closed!.msg, /^backend socket closed: test; reconnecting/, "the close's reason, as the backend gave it");
});

test('a backend that closes each socket as it opens (1013): the waits grow, not reset at each open', async (ctx) => {
  ctx.backend = await startFakeBackend();
  const backoff = quickBackoff();
  startLink(ctx, ctx.backend.url, { backoff, keptOpenMs: 60_000 });
  for (let closes = 1; closes <= 3; closes++) {
    await waitFor(() => ctx.backend!.authorizations.length === closes, { what: `connection ${closes}` });
    ctx.backend.closeAll(1013);
    await waitFor(() => backoff.attempts === closes, { what: `attempt ${closes} asked of the backoff` });
  }
  await connected(ctx);
  assert.is(backoff.attempts, 3, 'three quick closes in a row, three growing waits');
});

test('after a restart the previous session’s readings go first, each frame naming its session', async (ctx) => {
  const before = openSpool(ctx, 'previous');
  for (let i = 1; i <= 3; i++) before.push(`old-${i}`);
  before.ack({ type: 'ack', session: 'previous', seq: 1 });
  openSpool(ctx, 'current'); // as the next process opens it
  ctx.spool!.push('new-1');
  ctx.backend = await startFakeBackend();
  startLink(ctx, ctx.backend.url);
  await waitFor(() => ctx.spool!.size === 0, { timeout: 5000, what: 'all acked' });
  assert.equal(ctx.backend.received[0], { type: 'hello', deviceId: 'dev-1', session: 'current', backlog: 3 });
  assert.equal(
    ctx.backend.stored.map((r) => `${r.session}:${r.value}`),
    ['previous:old-2', 'previous:old-3', 'current:new-1'],
  );
  assert.equal(
    frames(ctx.backend).map((m) => m.session),
    ['previous', 'current'],
    'one frame per session',
  );
  assert.equal(
    ctx.backend.acks.map((a) => [a.session, a.seq]),
    [
      ['previous', 3],
      ['current', 1],
    ],
  );
});

test('refused readings are dropped with a warning; those after them arrive and nothing is resent', async (ctx) => {
  ctx.backend = await startFakeBackend();
  ctx.backend.refuse = (reading) => reading.value.startsWith('bad');
  startLink(ctx, ctx.backend.url);
  await connected(ctx);
  for (const value of ['ok-1', 'bad-2', 'ok-3', 'bad-4', 'ok-5']) send(ctx, value);
  await waitFor(() => ctx.spool!.size === 0, { timeout: 5000, what: 'all acknowledged' });
  assert.equal(
    ctx.backend.stored.map((r) => r.value),
    ['ok-1', 'ok-3', 'ok-5'],
  );
  await ctx.link!.close();
  openSpool(ctx, 'session-2'); // closes the first (its warning's remainder too), as a restart would
  assert.is(ctx.spool!.size, 0, 'refused readings are not kept for a restart');
  const refusals = ctx.sink.find('the backend refused');
  assert.is(
    refusals.reduce((sum, w) => sum + w.count, 0),
    2,
  );
  assert.ok(refusals.every((w) => w.level === 40 && w.session === 'session-1'));
});

test('a backlog drains in frames under the frame limit, never over inFlightMax ahead of the last ack', async (ctx) => {
  openSpool(ctx);
  for (let i = 1; i <= 5000; i++) ctx.spool!.push(`temperature_c=${(20 + i / 1000).toFixed(3)}`);
  ctx.backend = await startFakeBackend();
  ctx.backend.acking = false;
  startLink(ctx, ctx.backend.url, { inFlightMax: 1500, pingIntervalMs: 20 });
  const received = () => receivedReadings(ctx.backend!.received).length;
  for (const expected of [1500, 3000]) {
    await waitFor(() => received() >= expected, { timeout: 5000, what: `${expected} readings received` });
    // A ping sent after them shows the link stopped there: it waits for an ack.
    const pings = ctx.backend.pings;
    await waitFor(() => ctx.backend!.pings > pings, { timeout: 5000, what: 'a later ping' });
    assert.is(received(), expected, 'no more than inFlightMax unacknowledged');
    ctx.backend.ackReceived();
  }
  ctx.backend.acking = true;
  ctx.backend.ackReceived();
  await waitFor(() => ctx.spool!.size === 0, { timeout: 5000, what: 'the whole backlog acknowledged' });
  assert.equal(
    ctx.backend.stored.map((r) => r.seq),
    Array.from({ length: 5000 }, (_, i) => i + 1),
  );
  const readingFrames = ctx.backend.frameBytes.slice(1);
  assert.ok(readingFrames.length < 20, `${readingFrames.length} frames for 5000 readings`);
  assert.ok(Math.max(...readingFrames) <= DEVICE_MAX_PAYLOAD, `largest frame ${Math.max(...readingFrames)} bytes`);
  assert.ok(Math.max(...readingFrames) > DEVICE_MAX_PAYLOAD / 2, 'frames are filled');
  assert.not.ok(ctx.backend.closeCodes.length, 'never closed (1009: too large)');
  console.log(
    `  measured: 5000 readings in ${readingFrames.length} frames of up to ${Math.max(...readingFrames)} bytes`,
  );
});

test('the link keeps in flight what its backend says, and 2000 when it says none', async (ctx) => {
  for (const [saysInFlight, expected] of [
    [3000, 3000],
    [undefined, DEVICE_UNACKED_IN_FLIGHT_UNSAID],
  ] as const) {
    ctx.backend = await startFakeBackend(saysInFlight ? { saysInFlight } : {});
    ctx.backend.acking = false;
    ctx.spool = undefined;
    openSpool(ctx, 'session-1', mkdtempSync(join(ctx.dir, 'in-flight-')));
    for (let i = 1; i <= 5000; i++) ctx.spool!.push(`v${i}`);
    startLink(ctx, ctx.backend.url, { pingIntervalMs: 20 });
    const received = () => receivedReadings(ctx.backend!.received).length;
    await waitFor(() => received() >= expected, { timeout: 5000, what: `${expected} readings received` });
    // A ping sent after them shows the link stopped there: it waits for an ack.
    const pings = ctx.backend.pings;
    await waitFor(() => ctx.backend!.pings > pings, { timeout: 5000, what: 'a later ping' });
    assert.is(received(), expected, `in flight at most what the backend says (${saysInFlight})`);
    assert.is(ctx.sink.find('backend socket connected').at(-1)!.inFlightMax, expected);
    await ctx.link!.close();
    await ctx.backend.kill();
    ctx.spool!.close();
  }
});

test("frames go out paced: the backend's rate limit never closes the socket (it would unpaced)", async (ctx) => {
  // One reading per frame (the smallest frame limit), 60 frames against a fake that allows 25/s with bursts of 12.
  const rate = { perSecond: 25, burst: 12 };
  for (const [pace, closes] of [
    [{ perSecond: 1000, burst: 1000 }, true],
    [{ perSecond: 20, burst: 10 }, false],
  ] as const) {
    ctx.backend = await startFakeBackend({ rate });
    ctx.spool = undefined;
    openSpool(ctx, 'session-1', mkdtempSync(join(ctx.dir, 'pace-')));
    for (let i = 1; i <= 60; i++) ctx.spool!.push(`v${i}`);
    startLink(ctx, ctx.backend.url, { pace, maxPayload: 1 });
    if (closes) {
      await waitFor(() => ctx.backend!.closeCodes.includes(1008), { timeout: 5000, what: 'closed over its rate' });
    } else {
      await waitFor(() => ctx.spool!.size === 0, { timeout: 10_000, what: 'all 60 acknowledged' });
      assert.equal(ctx.backend.closeCodes, []);
      assert.is(frames(ctx.backend).length, 60);
      assert.equal(
        ctx.backend.stored.map((r) => r.seq),
        Array.from({ length: 60 }, (_, i) => i + 1),
      );
    }
    await ctx.link!.close();
    await ctx.backend.kill();
    ctx.spool!.close();
  }
});

test("the link paces under the rate its backend says, and under older backends' when it says none", async (ctx) => {
  // 60 one-reading frames against a backend that takes 25/s, bursts of 40, and says so: the shipped pace (99/s,
  // bursts of 300) would be closed with 1008.
  const rate = { perSecond: 25, burst: 40 };
  ctx.backend = await startFakeBackend({ rate, saysRate: true });
  const spool = openSpool(ctx);
  for (let i = 1; i <= 60; i++) spool.push(`v${i}`);
  startLink(ctx, ctx.backend.url, { maxPayload: 1 });
  await waitFor(() => ctx.spool!.size === 0, { timeout: 10_000, what: 'all 60 acknowledged' });
  assert.equal(ctx.backend.closeCodes, []);
  assert.equal(ctx.sink.find('backend socket connected').at(-1)!.pace, paceUnder(rate));
  await ctx.link!.close();
  await ctx.backend.kill();
  // A backend that says nothing is taken for one that takes 50/s, bursts of 200, as backends did before they said.
  ctx.backend = await startFakeBackend({ rate: DEVICE_MESSAGE_RATE_UNSAID });
  startLink(ctx, ctx.backend.url);
  await connected(ctx);
  assert.equal(ctx.sink.find('backend socket connected').at(-1)!.pace, { perSecond: 49, burst: 150 });
});

test('a silent peer (socket open, nothing read) is dropped for its silence, then it reconnects', async (ctx) => {
  ctx.backend = await startFakeBackend();
  startLink(ctx, ctx.backend.url, { pingIntervalMs: 50, silenceLimitMs: 1000 });
  await connected(ctx);
  await waitFor(() => ctx.backend!.pings >= 3, { timeout: 5000, what: 'pings answered' });
  const silenced = ctx.states.length;
  ctx.backend.silence();
  await waitFor(() => stateAfter(ctx, 'disconnected', silenced), { timeout: 10_000, what: 'silent peer noticed' });
  const [dropped] = ctx.sink.find('silent for');
  assert.ok(dropped, 'the drop names the silence');
  assert.equal([dropped!.level, ctx.sink.find('silent for').length], [40, 1]);
  assert.match(dropped!.msg, /^backend socket silent for \d+ ms: dropping it$/);
  await connected(ctx); // the fake's listener still accepts new sockets
});

test('a backend that is not there yet: warns once, retries, connects when it appears', async (ctx) => {
  const probe = await startFakeBackend();
  const { port, url } = probe;
  await probe.kill();
  startLink(ctx, url);
  await waitFor(() => ctx.sink.find('unavailable').length >= 3, { timeout: 5000, what: 'three failed attempts' });
  assert.is(lastState(ctx), 'disconnected');
  assert.is(ctx.sink.find('unavailable').filter((e) => e.level === 40).length, 1);
  assert.match(ctx.sink.find('unavailable')[0]!.reason, /ECONNREFUSED/);
  ctx.backend = await startFakeBackend({ port });
  await connected(ctx);
});

test(
  'a refused token: state unauthorized, one warning then debug lines, retries with backoff; ' +
    'accepted once the backend knows it',
  async (ctx) => {
    ctx.backend = await startFakeBackend();
    ctx.backend.token = 'the-backends-token-0123456789';
    startLink(ctx, ctx.backend.url, { token: 'the-devices-token-0123456789' });
    send(ctx, 'kept-1');
    const refusals = () => ctx.sink.find('backend refused the device token (401)');
    await waitFor(() => refusals().length >= 3, { timeout: 5000, what: 'three refusals' });
    assert.is(lastState(ctx), 'unauthorized');
    assert.ok(
      ctx.states.every((s) => s.state === 'unauthorized'),
      JSON.stringify(ctx.states),
    );
    // The reason readiness shows beside the state (`details.backend.reason`).
    assert.is(ctx.states[0]!.reason, 'the backend refused the token (HTTP 401)');
    assert.equal(
      refusals()
        .map((e) => e.level)
        .slice(0, 3),
      [40, 20, 20],
    );
    assert.is(ctx.sink.find('unavailable').length, 0, 'a refusal is not reported as an absent backend');
    assert.equal(
      refusals()
        .slice(0, 3)
        .map((e) => e.retryInMs),
      [8, 15, 30],
      'backs off',
    );
    assert.is(ctx.backend.authorizations[0], 'Bearer the-devices-token-0123456789');
    assert.not.ok(JSON.stringify(ctx.sink.entries).includes('token-0123456789'), 'a token in the log');
    ctx.backend.token = 'the-devices-token-0123456789';
    await connected(ctx);
    await waitFor(() => ctx.backend!.stored.length === 1, { timeout: 5000, what: 'the kept reading stored' });
  },
);

test('close sends 1001 (going away) and stops reconnecting', async (ctx) => {
  ctx.backend = await startFakeBackend();
  const backoff = quickBackoff();
  startLink(ctx, ctx.backend.url, { backoff });
  await connected(ctx);
  await ctx.link!.close();
  await waitFor(() => ctx.backend!.closeCodes.length === 1, { timeout: 2000, what: 'server saw the close' });
  assert.equal(ctx.backend.closeCodes, [1001]);
  assert.is(lastState(ctx), 'disconnected');
  // A reconnect is only ever scheduled through the backoff: none was asked for.
  assert.is(backoff.attempts, 0, 'no reconnect after close');
  assert.is(ctx.backend.connections, 0);
});

test.run();
