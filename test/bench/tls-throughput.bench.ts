// /api/health over HTTPS (keep-alive) against the same backend over plain HTTP, in one run, by autocannon and by wrk,
// with the server's CPU per request; and how many new TLS connections a second the backend's public port completes.
import type { Scenario, BenchRow } from './scenario.ts';
import { load, fmt } from './load.ts';
import { wrk } from './wrk.ts';
import { compareThroughput, cpuRow, throughputRow } from './throughput-rows.ts';
import { spawnService } from '../support/spawn-service.ts';
import { stopAll } from '../support/spawn-process.ts';
import { createTestCa } from '../support/test-ca.ts';
import { handshakesPerSecond, type Handshakes } from './tls-handshakes.ts';

const PATH = '/api/health';
const TERMS = { baseline: 'plain HTTP', goal: 0.75 };
const BARE = 'test/bench/fixtures/bare-health-server.ts';
const BARE_TERMS = { baseline: 'node:http', goal: null };

const tlsThroughput: Scenario = async ({ quick }) => {
  const rounds = quick ? 2 : 5;
  const seconds = quick ? 2 : 5;
  const ca = createTestCa();
  try {
    const cert = ca.issue('bench');
    const tlsEnv = { TLS_CERT_FILE: cert.certFile, TLS_KEY_FILE: cert.keyFile, LOG_LEVEL: 'info' };
    const secure = await spawnService('backend/main.ts', { env: tlsEnv, ca: ca.ca });
    const plain = await spawnService('backend/main.ts', { env: { LOG_LEVEL: 'info' } });
    const bareTls = await spawnService(BARE, { env: tlsEnv, ca: ca.ca });
    const bare = await spawnService(BARE, {});
    const ours = { url: secure.url + PATH, pid: secure.pid, ca: ca.ca };
    const baseline = { url: plain.url + PATH, pid: plain.pid };
    const rows: BenchRow[] = [];
    // autocannon verifies against the CA and pays its own share of the encryption on the same two cores; wrk
    // (C, OpenSSL, no verification) leaves the server's core as the limit, as in health-throughput.bench.ts.
    for (const [client, run] of [
      ['autocannon', load],
      ['wrk', wrk],
    ] as const) {
      const results = await compareThroughput(run, ours, baseline, { rounds, seconds });
      rows.push(
        throughputRow(`${PATH} over HTTPS, keep-alive (${client}, 50 conns, ${rounds}×${seconds}s)`, results, TERMS),
      );
      if (client === 'wrk')
        rows.push(cpuRow(`${PATH} HTTPS server CPU per 1,000 requests (wrk, as above)`, results, TERMS));
    }
    // What Node's TLS alone adds to a request, bare servers on both sides: the same cost the backend's rows carry,
    // over a cheaper request, so it weighs more here.
    const platform = await compareThroughput(
      wrk,
      { url: bareTls.url + PATH, pid: bareTls.pid },
      { url: bare.url + PATH, pid: bare.pid },
      { rounds, seconds },
    );
    rows.push(throughputRow(`${PATH} bare node:https against node:http (wrk, as above)`, platform, BARE_TERMS));
    rows.push(cpuRow(`${PATH} bare node:https server CPU per 1,000 requests (wrk)`, platform, BARE_TERMS));
    for (const resume of [false, true])
      rows.push(handshakeRow(await handshakesPerSecond(secure.port, ca.ca, { seconds, resume }), seconds, resume));
    return rows;
  } finally {
    await stopAll();
    ca.remove();
  }
};

function handshakeRow(handshakes: Handshakes, seconds: number, resume: boolean): BenchRow {
  const how = resume ? 'each resuming the last session' : 'full handshake';
  const resumed = resume ? `, ${fmt(handshakes.resumed)} of ${fmt(handshakes.completed)} resumed` : '';
  return {
    scenario: `new TLS connections/s to the public port (${how}, 10 at once, ${seconds}s)`,
    baseline: '—',
    ours: `${fmt(handshakes.perSecond)} handshakes/s${resumed}`,
    ratio: `${fmt(handshakes.perSecond)}/s`,
    target: 'report',
    ok: null,
  };
}

export default tlsThroughput;
