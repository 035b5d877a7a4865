// The device service refuses bad settings with one line on stderr (and, outside local mode, the same as a fatal
// JSON line on stdout) and exit code 1, before touching anything.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectRefusal } from './support/refused-start.ts';
import { stopAll } from './support/spawn-process.ts';

test.after.each(() => stopAll());

const expectConfigError = (env: Record<string, string | undefined>, message: RegExp | string) =>
  expectRefusal('device/main.ts', { env }, message);

test('missing SERIAL_PATH outside local mode', async () => {
  await expectConfigError(
    { NODE_ENV: 'production', SERIAL_PATH: undefined },
    /^device: SERIAL_PATH is not set: set it to the serial device .* or set NODE_ENV=local/,
  );
});

test('an unset NODE_ENV means production, where SERIAL_PATH is required', async () => {
  await expectConfigError({ NODE_ENV: undefined, SERIAL_PATH: undefined }, /^device: SERIAL_PATH is not set/);
});

test('SERIAL_BAUD_RATE=fast', async () => {
  await expectConfigError(
    { SERIAL_PATH: '/dev/ttyUSB0', SERIAL_BAUD_RATE: 'fast' },
    /^device: SERIAL_BAUD_RATE=fast is not valid: expected a whole number/,
  );
});

test('PORT=70000', async () => {
  await expectConfigError(
    { SERIAL_PATH: '/dev/ttyUSB0', PORT: '70000' },
    /^device: PORT=70000 is not valid: expected a port number from 0 to 65535$/,
  );
});

test('a RELEASE_ID that cannot be reported as it is (a space, 200 characters): one line, exit 1', async () => {
  await expectConfigError(
    { NODE_ENV: 'local', RELEASE_ID: 'v1 beta' },
    /^device: RELEASE_ID="v1 beta" is not valid: use letters, digits and \. _ \+ - only/,
  );
  await expectConfigError(
    { NODE_ENV: 'local', RELEASE_ID: 'r'.repeat(200) },
    /^device: RELEASE_ID="r{40}…" is not valid: it is 200 characters long, at most 128$/,
  );
});

test('BACKEND_URL that is not an http(s) URL', async () => {
  await expectConfigError(
    { NODE_ENV: 'local', BACKEND_URL: 'ftp://backend' },
    /^device: BACKEND_URL=ftp:\/\/backend is not valid/,
  );
});

test('a DEVICE_SPOOL_DIR that cannot be written: one line at start-up, not a crash on the first reading', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'device-config-'));
  const file = join(dir, 'not-a-directory');
  writeFileSync(file, '');
  try {
    const { fatal } = await expectConfigError(
      { SERIAL_PATH: '/dev/ttyUSB0', DEVICE_SPOOL_DIR: join(file, 'spool') },
      new RegExp(`^device: DEVICE_SPOOL_DIR=${join(file, 'spool')} cannot be used: ENOTDIR: .*this user can write\\)$`),
    );
    assert.is(fatal?.code, 'ENOTDIR');
    await expectConfigError(
      { NODE_ENV: 'local', DEVICE_SPOOL_DIR: file },
      `device: DEVICE_SPOOL_DIR=${file} cannot be used: EEXIST`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a DEVICE_ID the backend would refuse: refused at start-up, never "ready" and never stored', async () => {
  const { fatal } = await expectConfigError(
    { SERIAL_PATH: '/dev/ttyUSB0', DEVICE_ID: 'Küche 1' },
    /^device: DEVICE_ID="Küche 1" is not valid: expected letters, digits, '\.', '_' and '-', 1 to 256 characters/,
  );
  assert.is(fatal?.code, 'ConfigError');
  await expectConfigError({ NODE_ENV: 'local', DEVICE_ID: 'a/b' }, 'device: DEVICE_ID="a/b" is not valid');
});

// Node's own recursive mkdir spun here at 100% CPU, with no output, deaf to SIGTERM.
test('a DEVICE_SPOOL_DIR under /proc: one line and exit 1, not a spin', async () => {
  const { fatal } = await expectConfigError(
    { SERIAL_PATH: '/dev/ttyUSB0', DEVICE_SPOOL_DIR: '/proc/spool' },
    /^device: DEVICE_SPOOL_DIR=\/proc\/spool cannot be used: ENOENT: .*this user can write\)$/,
  );
  assert.is(fatal?.code, 'ENOENT');
  await expectConfigError(
    { NODE_ENV: 'local', DEVICE_SPOOL_DIR: '/proc/self/spool/deeper' },
    'device: DEVICE_SPOOL_DIR=/proc/self/spool/deeper cannot be used: ENOENT',
  );
});

test('DEVICE_SPOOL_MAX_BYTES under 1 MiB', async () => {
  await expectConfigError(
    { NODE_ENV: 'local', DEVICE_SPOOL_MAX_BYTES: '65536' },
    /^device: DEVICE_SPOOL_MAX_BYTES=65536 is not valid: expected a whole number from 1048576 to/,
  );
});

test('a port already in use', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as { port: number };
  try {
    await expectConfigError({ NODE_ENV: 'local', PORT: String(port) }, /already in use/);
    await expectConfigError(
      { NODE_ENV: 'production', SERIAL_PATH: '/dev/ttyUSB0', PORT: String(port) },
      /already in use/,
    );
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
});

test.run();
