// Runs the real Alertmanager (Debian package `prometheus-alertmanager`) on a free loopback port with a given
// configuration, its data in a temporary folder and clustering off; its API answers what it holds and why.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../../tools/free-port.ts';
import type { Spawned } from './spawn-process.ts';
import { startReadyBinary } from './ready-binary.ts';
import { withDeadline } from './deadline.ts';

/** One alert as /api/v2/alerts lists it. */
export interface HeldAlert {
  labels: Record<string, string>;
  status: { state: 'active' | 'suppressed' | 'unprocessed'; inhibitedBy: string[]; silencedBy: string[] };
}

export interface AlertmanagerServer {
  url: string;
  process: Spawned;
  alerts(): Promise<HeldAlert[]>;
  stop(): Promise<void>;
}

/** `config` is an alertmanager.yml as an object (the test's copy of deploy/prometheus/alertmanager.yml); `port`, one
 * that Prometheus was told of before. */
export async function startAlertmanager(config: object, port?: number): Promise<AlertmanagerServer> {
  const dir = mkdtempSync(join(tmpdir(), 'alertmanager-'));
  writeFileSync(join(dir, 'alertmanager.yml'), stringify(config));
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [
    `--config.file=${join(dir, 'alertmanager.yml')}`,
    `--storage.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--cluster.listen-address=', // no gossip port: one instance, nothing but loopback
  ];
  const { proc, stop } = await startReadyBinary('prometheus-alertmanager', args, url, dir);
  return {
    url,
    process: proc,
    async alerts() {
      const res = await withDeadline(fetch(`${url}/api/v2/alerts`), 10_000, 'alertmanager /api/v2/alerts');
      return (await res.json()) as HeldAlert[];
    },
    stop,
  };
}
