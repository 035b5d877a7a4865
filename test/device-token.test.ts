// The real device service against the real backend with a token the backend does not know: readiness names
// the cause (`checks.backend = "unauthorized"`), the log says so once, and neither process prints a token.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnService, TEST_DEVICE_TOKEN } from './support/spawn-service.ts';
import { waitFor } from './support/deadline.ts';
import { stopAll } from './support/spawn-process.ts';
import { jsonLines } from './support/device-services.ts';

const test = suite('device token');
test.after.each(() => stopAll());

const DEVICE_SIDE_TOKEN = 'not-the-backends-token-5a1f0c3e';
const ready = async (url: string) => {
  const res = await fetch(`${url}/api/ready`);
  return { status: res.status, body: await res.json() };
};

for (const [what, deviceToken] of [
  ['a wrong token', DEVICE_SIDE_TOKEN],
  ['no token', undefined],
] as const) {
  test(
    `${what}: /api/ready 503 with checks.backend "unauthorized"; ` + `one warning, then debug lines while it retries`,
    async () => {
      const backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: 'mongodb://127.0.0.1:9/app' } });
      const device = await spawnService('device/main.ts', {
        env: {
          NODE_ENV: 'local',
          NO_COLOR: '1',
          LOG_LEVEL: 'debug',
          BACKEND_URL: backend.url,
          DEVICE_TOKEN: deviceToken,
        },
      });
      const refused = () => device.lines.filter((l) => l.includes('backend refused the device token (401)'));
      await waitFor(() => refused().length >= 3, { timeout: 10_000, what: 'three refusals' });
      const { status, body } = await ready(device.url);
      assert.is(status, 503);
      assert.equal(body.checks, { serial: 'emulator', backend: 'unauthorized', spool: 'writable', acks: 'ok' });
      // Local mode pretty-prints: the level is the line's first word.
      assert.equal(
        refused()
          .slice(0, 3)
          .map((l) => /\b(WARN|DEBUG)\b/.exec(l)?.[1]),
        ['WARN', 'DEBUG', 'DEBUG'],
      );
      const backendWarning = await waitFor(
        () => jsonLines(backend).find((l) => String(l.msg).startsWith('refused a device socket upgrade')),
        { timeout: 2000, what: 'the backend warning' },
      );
      assert.is(backendWarning.reason, deviceToken ? 'wrong token' : 'no token');
      for (const output of [backend.lines.join('\n'), device.lines.join('\n')]) {
        assert.not.ok(
          output.includes(TEST_DEVICE_TOKEN) || output.includes(DEVICE_SIDE_TOKEN),
          'a token in the output',
        );
      }
    },
  );
}

test('the right token: connected and ready', async () => {
  const backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: 'mongodb://127.0.0.1:9/app' } });
  const device = await spawnService('device/main.ts', { env: { NODE_ENV: 'local', BACKEND_URL: backend.url } });
  await waitFor(async () => (await ready(device.url)).body.checks.backend === 'connected', {
    timeout: 10_000,
    what: 'backend connected',
  });
});

test.run();
