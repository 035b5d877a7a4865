// Runs the real Prometheus (Debian package `prometheus`) on a free loopback port, scraping the given services every
// second, with its data in a temporary folder; its HTTP API answers the tests' queries.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../../tools/free-port.ts';
import type { Spawned } from './spawn-process.ts';
import { startReadyBinary } from './ready-binary.ts';
import { withDeadline } from './deadline.ts';

export interface VectorSample {
  metric: Record<string, string>;
  value: number;
}

export interface PrometheusServer {
  url: string;
  process: Spawned;
  /** An instant query through /api/v1/query. */
  query(expr: string): Promise<VectorSample[]>;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** job name → the service's base URL (http://127.0.0.1:PORT). */
  targets: Record<string, string>;
  /** Alert rules as a rule-file object (`{ groups: [...] }`), written beside the configuration. */
  rules?: object;
  /** Alertmanager base URLs the alerts are sent to. */
  alertmanagers?: string[];
  /** Also scrape Prometheus itself, as job `prometheus` (its prometheus_notifications_* series). */
  scrapeSelf?: boolean;
}

export async function startPrometheus({
  targets,
  rules,
  alertmanagers,
  scrapeSelf,
}: PrometheusOptions): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const jobs = { ...targets, ...(scrapeSelf ? { prometheus: url } : {}) };
  const hosts = (urls: string[]) => [{ targets: urls.map((u) => new URL(u).host) }];
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    ...(rules ? { rule_files: [join(dir, 'rules.yml')] } : {}),
    ...(alertmanagers ? { alerting: { alertmanagers: [{ static_configs: hosts(alertmanagers) }] } } : {}),
    scrape_configs: Object.entries(jobs).map(([job, url]) => ({ job_name: job, static_configs: hosts([url]) })),
  };
  writeFileSync(join(dir, 'prometheus.yml'), stringify(config));
  if (rules) writeFileSync(join(dir, 'rules.yml'), stringify(rules));
  const args = [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    // Firing alerts are sent again every second, not every minute: a test sees deliveries (and failed ones) soon.
    ...(alertmanagers ? ['--rules.alert.resend-delay=1s'] : []),
  ];
  const { proc, stop } = await startReadyBinary('prometheus', args, url, dir);
  return {
    url,
    process: proc,
    async query(expr) {
      const res = await withDeadline(fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`), 10_000, expr);
      const body = (await res.json()) as {
        status: string;
        error?: string;
        data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== 'success') throw new Error(`query ${expr}: ${body.error}`);
      return body.data.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
    },
    stop,
  };
}
