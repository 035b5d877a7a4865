// The backend link against a real WebSocket server: delivery, acks, loss and return, silence, shutdown.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createBackendLink, type BackendLink } from './backend-link.ts';
import { createReadingQueue, type ReadingQueue } from './reading-queue.ts';
import { createLogSink, type LogSink } from '../test/support/log-sink.ts';
import { startFakeBackend, type FakeBackend } from '../test/support/fake-device-backend.ts';
import { sleep, waitFor } from '../test/support/deadline.ts';

interface Ctx {
  backend?: FakeBackend;
  link?: BackendLink;
  queue?: ReadingQueue;
  sink?: LogSink;
  states: Array<{ state: string; at: number }>;
}

const test = suite<Ctx>('backend link', { states: [] });

test.after.each(async (ctx) => {
  await ctx.link?.close();
  await ctx.backend?.kill();
  ctx.queue?.flush();
  ctx.link = ctx.backend = ctx.queue = undefined;
  ctx.states = [];
});

function startLink(
  ctx: Ctx,
  url: string,
  { limit, token, pace }: { limit?: number; token?: string; pace?: { perSecond: number; burst: number } } = {},
) {
  ctx.sink = createLogSink();
  ctx.queue = createReadingQueue({ deviceId: 'dev-1', session: 'session-1', log: ctx.sink.log, limit });
  ctx.link = createBackendLink({
    url,
    deviceId: 'dev-1',
    session: 'session-1',
    token,
    pace,
    queue: ctx.queue,
    log: ctx.sink.log,
    onState: (state) => ctx.states.push({ state, at: performance.now() }),
  });
  ctx.link.start();
  return { queue: ctx.queue, link: ctx.link };
}

const send = (ctx: Ctx, value: string) => ctx.link!.deliver(ctx.queue!.push(value));
const lastState = (ctx: Ctx) => ctx.states.at(-1)?.state ?? 'disconnected';
const stateAfter = (ctx: Ctx, state: string, since: number) =>
  ctx.states.find((s) => s.state === state && s.at >= since);
const connected = (ctx: Ctx, timeout = 3000) =>
  waitFor(() => lastState(ctx) === 'connected', { timeout, what: 'backend connected' });

test('says hello, sends readings in order, and forgets them once acked', async (ctx) => {
  ctx.backend = await startFakeBackend();
  startLink(ctx, ctx.backend.url);
  await connected(ctx);
  for (let i = 1; i <= 20; i++) send(ctx, `v${i}`);
  await waitFor(() => ctx.backend!.stored.length === 20 && ctx.queue!.size === 0, {
    timeout: 3000,
    what: '20 stored and acked',
  });
  assert.equal(ctx.backend.received[0], { type: 'hello', deviceId: 'dev-1', session: 'session-1' });
  assert.equal(
    ctx.backend.stored.map((r) => r.value),
    Array.from({ length: 20 }, (_, i) => `v${i + 1}`),
  );
});

test(
  'backend killed → disconnected within 250 ms; ' + 'back → connected within 3 s; the gap arrives in order, once',
  async (ctx) => {
    ctx.backend = await startFakeBackend();
    startLink(ctx, ctx.backend.url);
    await connected(ctx);
    send(ctx, 'before-1');
    send(ctx, 'before-2');
    await waitFor(() => ctx.queue!.size === 0, { timeout: 3000, what: 'first readings acked' });

    const killedAt = performance.now();
    await ctx.backend.kill();
    const down = await waitFor(() => stateAfter(ctx, 'disconnected', killedAt), {
      timeout: 3000,
      what: 'disconnected',
    });
    const downMs = down.at - killedAt;
    assert.ok(downMs < 250, `disconnected after ${downMs} ms`);

    for (let i = 1; i <= 5; i++) send(ctx, `away-${i}`);
    await sleep(4000); // long enough for the backoff to reach its 2 s cap
    assert.is(ctx.queue!.size, 5);
    const restartedAt = performance.now();
    await ctx.backend.restart();
    const up = await waitFor(() => stateAfter(ctx, 'connected', restartedAt), { timeout: 5000, what: 'reconnected' });
    const upMs = up.at - restartedAt;
    assert.ok(upMs < 3000, `reconnected after ${upMs} ms`);
    send(ctx, 'after-1');
    await waitFor(() => ctx.backend!.stored.length === 8 && ctx.queue!.size === 0, {
      timeout: 3000,
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
    assert.is(ctx.sink!.find('backend socket closed').length, 1);
    console.log(
      `  measured (in-process ws server): killed → disconnected in ${downMs.toFixed(0)} ms; ` +
        `back → connected in ${upMs.toFixed(0)} ms`,
    );
  },
);

test('unacked readings are resent after a reconnect; the backend stores each once', async (ctx) => {
  ctx.backend = await startFakeBackend();
  ctx.backend.acking = false;
  startLink(ctx, ctx.backend.url);
  await connected(ctx);
  for (let i = 1; i <= 3; i++) send(ctx, `v${i}`);
  await waitFor(() => ctx.backend!.stored.length === 3, { timeout: 3000, what: '3 received' });
  assert.is(ctx.queue!.size, 3, 'kept until acked');
  await ctx.backend.kill();
  ctx.backend.acking = true;
  const since = performance.now();
  await ctx.backend.restart();
  await waitFor(() => stateAfter(ctx, 'connected', since), { timeout: 5000, what: 'reconnected' });
  await waitFor(() => ctx.queue!.size === 0, { timeout: 3000, what: 'resent readings acked' });
  const resent = ctx.backend.received.filter((m) => m.type === 'reading').map((m) => (m as { seq: number }).seq);
  assert.equal(resent, [1, 2, 3, 1, 2, 3]);
  assert.equal(
    ctx.backend.stored.map((r) => r.seq),
    [1, 2, 3],
  );
});

test(
  'queue overflow while away: the oldest are dropped with a warning saying how many; ' + 'the rest arrive',
  async (ctx) => {
    ctx.backend = await startFakeBackend();
    startLink(ctx, ctx.backend.url, { limit: 5 });
    await connected(ctx);
    await ctx.backend.kill();
    await waitFor(() => lastState(ctx) === 'disconnected', { timeout: 2000, what: 'disconnected' });
    for (let i = 1; i <= 8; i++) send(ctx, `v${i}`);
    const warning = ctx.sink!.find('reading queue full');
    assert.is(warning.length, 1);
    assert.is(warning[0]!.level, 40);
    assert.match(warning[0]!.msg, /dropped the 1 oldest/);
    ctx.queue!.flush(); // reports the two dropped after the first warning
    assert.equal(
      ctx.sink!.find('reading queue full').map((w) => w.dropped),
      [1, 2],
    );
    await ctx.backend.restart();
    await waitFor(() => ctx.backend!.stored.length === 5, { timeout: 5000, what: 'five stored' });
    assert.equal(
      ctx.backend.stored.map((r) => r.seq),
      [4, 5, 6, 7, 8],
    );
  },
);

test('a silent peer (socket open, nothing read) → disconnected within 5 s, then reconnects', async (ctx) => {
  ctx.backend = await startFakeBackend();
  startLink(ctx, ctx.backend.url);
  await connected(ctx);
  await sleep(1200); // a few pings answered first
  const silencedAt = performance.now();
  ctx.backend.silence();
  const down = await waitFor(() => stateAfter(ctx, 'disconnected', silencedAt), {
    timeout: 8000,
    what: 'silent peer noticed',
  });
  const silentMs = down.at - silencedAt;
  assert.ok(silentMs < 5000, `silent peer noticed after ${silentMs} ms`);
  assert.ok(silentMs > 1500, `noticed after only ${silentMs} ms: the limit is 2.5 s of silence`);
  assert.ok(ctx.sink!.find('silent for').length === 1);
  await connected(ctx, 3000); // the fake's listener still accepts new sockets
  console.log(`  measured (in-process ws server): silent peer → disconnected in ${silentMs.toFixed(0)} ms`);
});

test('a backend that is not there yet: warns once, retries, connects when it appears', async (ctx) => {
  const probe = await startFakeBackend();
  const { port, url } = probe;
  await probe.kill();
  startLink(ctx, url);
  await waitFor(() => ctx.sink!.find('unavailable').length >= 3, { timeout: 5000, what: 'three failed attempts' });
  assert.is(lastState(ctx), 'disconnected');
  assert.is(ctx.sink!.find('unavailable').filter((e) => e.level === 40).length, 1);
  assert.match(ctx.sink!.find('unavailable')[0]!.reason, /ECONNREFUSED/);
  ctx.backend = await startFakeBackend(port);
  await connected(ctx, 3000);
});

test(
  'a backlog goes out paced (burst, then the sustained rate), in order, ' +
    "so the backend's rate limit never closes the socket",
  async (ctx) => {
    ctx.backend = await startFakeBackend();
    ctx.backend.acking = false;
    startLink(ctx, ctx.backend.url, { pace: { perSecond: 20, burst: 10 } });
    for (let i = 1; i <= 40; i++) send(ctx, `v${i}`);
    await connected(ctx);
    const readings = () => ctx.backend!.received.filter((m) => m.type === 'reading').length;
    await waitFor(() => readings() >= 9, { timeout: 2000, what: 'the burst' });
    const burstAt = performance.now();
    await sleep(500);
    const inHalfASecond = readings() - 9;
    // The burst (10, the hello included) and then 20 a second: about 10 more in 500 ms, never the whole backlog.
    assert.ok(inHalfASecond >= 5 && inHalfASecond <= 14, `${inHalfASecond} readings in the 500 ms after the burst`);
    await waitFor(() => readings() === 40, { timeout: 4000, what: 'all 40 sent' });
    const tookMs = performance.now() - burstAt;
    assert.ok(tookMs > 1200, `the backlog went out in ${tookMs} ms: not paced`);
    assert.equal(
      ctx.backend.stored.map((r) => r.seq),
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
  },
);

test(
  'a refused token: state unauthorized, one warning then debug lines, retries with backoff; ' +
    'accepted once the backend knows it',
  async (ctx) => {
    ctx.backend = await startFakeBackend();
    ctx.backend.token = 'the-backends-token-0123456789';
    startLink(ctx, ctx.backend.url, { token: 'the-devices-token-0123456789' });
    send(ctx, 'kept-1');
    const refusals = () => ctx.sink!.find('backend refused the device token (401)');
    await waitFor(() => refusals().length >= 3, { timeout: 5000, what: 'three refusals' });
    assert.is(lastState(ctx), 'unauthorized');
    assert.ok(
      ctx.states.every((s) => s.state === 'unauthorized'),
      JSON.stringify(ctx.states),
    );
    assert.equal(
      refusals()
        .map((e) => e.level)
        .slice(0, 3),
      [40, 20, 20],
    );
    assert.is(ctx.sink!.find('unavailable').length, 0, 'a refusal is not reported as an absent backend');
    assert.ok(refusals()[1]!.retryInMs > refusals()[0]!.retryInMs, 'backs off');
    assert.is(ctx.backend.authorizations[0], 'Bearer the-devices-token-0123456789');
    assert.not.ok(JSON.stringify(ctx.sink!.entries).includes('token-0123456789'), 'a token in the log');
    ctx.backend.token = 'the-devices-token-0123456789';
    await connected(ctx, 3000);
    await waitFor(() => ctx.backend!.stored.length === 1, { timeout: 3000, what: 'the kept reading stored' });
  },
);

test('close sends 1001 (going away) and stops reconnecting', async (ctx) => {
  ctx.backend = await startFakeBackend();
  startLink(ctx, ctx.backend.url);
  await connected(ctx);
  await ctx.link!.close();
  await waitFor(() => ctx.backend!.closeCodes.length === 1, { timeout: 2000, what: 'server saw the close' });
  assert.equal(ctx.backend.closeCodes, [1001]);
  assert.is(lastState(ctx), 'disconnected');
  await sleep(500);
  assert.is(ctx.backend.connections, 0, 'no reconnect after close');
});

test.run();
