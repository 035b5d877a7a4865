// A free TCP port, for processes that must be told their port before they start (the local stack's database, a URL
// nothing listens on); a server that can bind port 0 itself should do that and say its port instead.
//
// Such a port is named seconds before it is bound. A port from the kernel's ephemeral range (what binding port 0
// gives, 32768–60999 on Linux) may meanwhile become the source port of any outgoing connection on the machine, and
// a test suite makes thousands: the stack then says "port … is already in use". So on Linux the port comes from
// below that range, where the kernel never picks one by itself, and each is claimed by a file naming the claiming
// process (under the temporary directory), so that processes using this helper at once never name the same port
// while the one that claimed it lives.
import { mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Ports handed out by this process already: one is never handed out twice. */
const handedOut = new Set<number>();
const ATTEMPTS = 50;
/** The lowest port handed out below the ephemeral range: clear of the well-known and most registered ports. */
const LOWEST = 16_384;
const CLAIMS = join(tmpdir(), `free-ports-${process.getuid?.() ?? 'user'}`);
/** Read once per process: the range is the machine's setting, and the claims' folder once made stays. */
let range: { low: number; high: number } | undefined | null = null; // null: not read yet
/** Claims this process made: removed when it exits, so that the folder does not fill up run after run. */
const claims: string[] = [];
process.once('exit', () => claims.forEach((file) => rmSync(file, { force: true })));

/** A port nothing listens on right now on `host`, not handed out before by this process nor claimed by a live one. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  if (range === null) range = belowEphemeral();
  const below = range;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = below ? below.low + Math.floor(Math.random() * (below.high - below.low + 1)) : 0;
    if (handedOut.has(port) || (below && !claimed(port))) continue;
    const bound = await bindable(port, host);
    if (bound === undefined || handedOut.has(bound)) continue;
    handedOut.add(bound);
    return bound;
  }
  throw new Error(`no free port on ${host} that was not handed out already, in ${ATTEMPTS} tries`);
}

/** The ports below the kernel's ephemeral range, where it can be read (Linux); undefined elsewhere. */
function belowEphemeral(): { low: number; high: number } | undefined {
  try {
    const [first] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (first! - 1 <= LOWEST) return undefined;
    mkdirSync(CLAIMS, { recursive: true });
    return { low: LOWEST, high: first! - 1 };
  } catch {
    return undefined;
  }
}

/** Claims `port` for this process; false when a live process holds the claim (a dead one's is removed, not taken). */
function claimed(port: number): boolean {
  const file = join(CLAIMS, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    claims.push(file);
    return true;
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT') {
      mkdirSync(CLAIMS, { recursive: true }); // a cleaner removed the folder since
      return claimed(port);
    }
    if (code !== 'EEXIST') throw error;
  }
  try {
    if (!alive(Number(readFileSync(file, 'utf8')))) unlinkSync(file);
  } catch {
    // Another process removed or replaced the claim meanwhile: the port is skipped all the same.
  }
  return false;
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The port bound and let go at once (0: the kernel's choice); undefined when something listens there. */
function bindable(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(undefined) : reject(error),
    );
    server.listen(port, host, () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}
