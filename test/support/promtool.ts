// Runs Prometheus's promtool (Debian package `prometheus`, installed by scripts/setup.sh) with a time limit.
import { spawnSync } from 'node:child_process';

export interface PromtoolResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `input` goes to its stdin (`promtool check metrics` reads the exposition there). */
export function promtool(args: string[], input?: string): PromtoolResult {
  const run = spawnSync('promtool', args, { input, encoding: 'utf8', timeout: 30_000 });
  if (run.error) {
    const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(missing ? 'promtool is not installed: run bash scripts/setup.sh' : run.error.message);
  }
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Lints one /metrics answer; the lint's complaints as lines, none when it passes. */
export function lintMetrics(exposition: string): string[] {
  const { code, stdout, stderr } = promtool(['check', 'metrics'], exposition);
  const complaints = `${stdout}${stderr}`.split('\n').filter((line) => line.trim() !== '');
  return code === 0 ? [] : complaints.length > 0 ? complaints : [`promtool exited with ${code}`];
}
