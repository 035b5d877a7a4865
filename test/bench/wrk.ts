// Runs wrk (Debian's package, a C load generator) against a URL for a fixed time: the same measure as load.ts's
// autocannon, from a client that is not itself the bottleneck. Its figures come as JSON from a Lua `done` hook.
import { fileURLToPath } from 'node:url';
import { runCommand } from '../../tools/child-process.ts';
import type { LoadResult } from './load.ts';

const report = fileURLToPath(new URL('fixtures/wrk-report.lua', import.meta.url));

interface WrkReport {
  requests: number;
  durationUs: number;
  errors: number;
  non2xx: number;
  p99Us: number;
}

/** One thread (the other core is the server's), `connections` keep-alive connections, as autocannon's. */
export async function wrk(
  url: string,
  { seconds, connections = 50 }: { seconds: number; connections?: number },
): Promise<LoadResult> {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '-s', report, url];
  const run = await runCommand('wrk', args, { timeoutMs: (seconds + 30) * 1000 });
  if (run.missing) throw new Error('wrk is not installed: run bash scripts/setup.sh');
  const last = run.stdout.trimEnd().split('\n').at(-1) ?? '';
  if (run.code !== 0 || !last.startsWith('{'))
    throw new Error(`wrk ${args.join(' ')}: exit ${run.code}: ${run.stderr}`);
  const r = JSON.parse(last) as WrkReport;
  return {
    rps: r.requests / (r.durationUs / 1e6),
    requests: r.requests,
    p99: Math.round(r.p99Us / 100) / 10,
    errors: r.errors,
    non2xx: r.non2xx,
  };
}
