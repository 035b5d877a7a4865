// Runs Alertmanager's amtool (Debian package `prometheus-alertmanager`, installed by scripts/setup.sh) with a time
// limit, as test/support/promtool.ts runs promtool.
import { spawnSync } from 'node:child_process';
import type { PromtoolResult } from './promtool.ts';

export function amtool(args: string[]): PromtoolResult {
  const run = spawnSync('amtool', args, { encoding: 'utf8', timeout: 30_000 });
  if (run.error) {
    const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(missing ? 'amtool is not installed: run bash scripts/setup.sh' : run.error.message);
  }
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The receivers `amtool config routes test` picks for an alert with these labels, as amtool prints them. */
export function routesTo(configFile: string, labels: Record<string, string>): string {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}=${value}`);
  const { code, stdout, stderr } = amtool(['config', 'routes', 'test', `--config.file=${configFile}`, ...pairs]);
  if (code !== 0) throw new Error(`amtool config routes test ${pairs.join(' ')}: exit ${code}: ${stderr.trim()}`);
  return stdout.trim();
}
