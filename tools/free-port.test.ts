import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';

/** 300 ports taken by a process of its own. */
async function portsOfAnotherProcess(): Promise<number[]> {
  const script = `const { freePort } = await import(${JSON.stringify(import.meta.resolve('./free-port.ts'))});
    const ports = []; for (let i = 0; i < 300; i++) ports.push(await freePort());
    console.log(JSON.stringify(ports));`;
  const args = ['--import', 'tsx', '--input-type=module', '-e', script];
  const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: 30_000 });
  return JSON.parse(stdout) as number[];
}

test('ports handed out one after another are all different, and each can be bound', async () => {
  const ports: number[] = [];
  for (let i = 0; i < 200; i++) ports.push(await freePort());
  assert.is(new Set(ports).size, ports.length, 'no port handed out twice');
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(ports.at(-1), '127.0.0.1', resolve);
  });
  await new Promise((resolve) => server.close(resolve));
});

test('on Linux, below the ephemeral range: no outgoing connection takes the port before it is bound', async () => {
  const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
  for (let i = 0; i < 20; i++) {
    const port = await freePort();
    assert.ok(port >= 1024 && port < Number(ephemeralLow), `${port} below ${ephemeralLow}`);
  }
});

test('another process never names a port this live one took (300 each from 16,384: by chance, about 5)', async () => {
  const ours: number[] = [];
  for (let i = 0; i < 300; i++) ours.push(await freePort());
  const theirs = await portsOfAnotherProcess();
  assert.is(theirs.length, 300);
  assert.equal(
    theirs.filter((port) => ours.includes(port)),
    [],
    'no port named by both',
  );
});

test('a process that exits leaves none of its claims behind', async () => {
  const theirs = await portsOfAnotherProcess();
  const claims = join(tmpdir(), `free-ports-${process.getuid!()}`);
  assert.equal(
    theirs.filter((port) => existsSync(join(claims, String(port)))),
    [],
    'their claims removed',
  );
});

test.run();
