// /api/health over HTTPS (keep-alive) against the same backend over plain HTTP, in one run; and how many new TLS
// connections a second the backend's public port completes (a full handshake each, no session resumption).
import { connect } from 'node:tls';
import type { Scenario, BenchRow } from './scenario.ts';
import { interleaved, median } from './scenario.ts';
import { load, fmt } from './load.ts';
import { spawnService } from '../support/spawn-service.ts';
import { stopAll } from '../support/spawn-process.ts';
import { createTestCa } from '../support/test-ca.ts';

const tlsThroughput: Scenario = async ({ quick }) => {
  const rounds = quick ? 2 : 5;
  const seconds = quick ? 2 : 5;
  const ca = createTestCa();
  try {
    const cert = ca.issue('bench');
    const tlsEnv = { TLS_CERT_FILE: cert.certFile, TLS_KEY_FILE: cert.keyFile, LOG_LEVEL: 'info' };
    const secure = await spawnService('backend/main.ts', { env: tlsEnv, ca: ca.ca });
    const plain = await spawnService('backend/main.ts', { env: { LOG_LEVEL: 'info' } });
    const path = '/api/health';
    await load(secure.url + path, { seconds: 3, ca: ca.ca });
    await load(plain.url + path, { seconds: 3 });
    const results = await interleaved(
      rounds,
      () => load(secure.url + path, { seconds, ca: ca.ca }),
      () => load(plain.url + path, { seconds }),
    );
    const rps = { ours: median(results.ours.map((r) => r.rps)), bare: median(results.baseline.map((r) => r.rps)) };
    const failures = results.ours.reduce((n, r) => n + r.errors + r.non2xx, 0);
    const ratio = median(results.ours.map((r, round) => r.rps / results.baseline[round]!.rps));
    const handshakes = await handshakesPerSecond(secure.port, ca.ca, seconds);
    const rows: BenchRow[] = [
      {
        scenario: `${path} over HTTPS, keep-alive (autocannon, 50 conns, ${rounds}×${seconds}s)`,
        baseline: `plain HTTP ${fmt(rps.bare)} req/s`,
        ours: `${fmt(rps.ours)} req/s${failures ? `, ${failures} errors/non-2xx` : ''}`,
        ratio: `${ratio.toFixed(2)}×`,
        target: '≥ 0.75×',
        ok: ratio >= 0.75 && failures === 0,
      },
      {
        scenario: `new TLS connections/s to the public port (full handshake, 10 at once, ${seconds}s)`,
        baseline: '—',
        ours: `${fmt(handshakes)} handshakes/s`,
        ratio: `${fmt(handshakes)}/s`,
        target: 'report',
        ok: null,
      },
    ];
    return rows;
  } finally {
    await stopAll();
    ca.remove();
  }
};

/** Completed handshakes a second, 10 clients opening, verifying and closing connections back to back. */
async function handshakesPerSecond(port: number, ca: string, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let completed = 0;
  const client = async () => {
    while (performance.now() < until) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost', session: undefined });
        socket.once('secureConnect', () => {
          completed++;
          socket.destroy();
          resolve();
        });
        socket.once('error', reject);
      });
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: 10 }, client));
  return completed / ((performance.now() - started) / 1000);
}

export default tlsThroughput;
