// Runs the frontend: reads its config, listens, and on SIGTERM/SIGINT stops accepting, drains and exits 0.
import { fileURLToPath } from 'node:url';
import { runMain } from '../lib/run-main.ts';
import { startServer } from '../lib/serve.ts';
import { readTlsFiles } from '../lib/tls-setting.ts';
import { closeHttpServer, installGracefulShutdown, plainShutdownLog } from '../lib/shutdown.ts';
import { createApp } from './app.ts';
import { readConfig } from './config.ts';
import { redactUrl } from '../lib/redact-url.ts';
import { checkoutCommit, readReleaseId } from '../lib/release-id.ts';

runMain(
  'frontend',
  async function main() {
    const { port, host, backendUrl, deviceUrl, timeoutMs, backendReadToken } = readConfig(process.env);
    const version = readReleaseId(process.env, () => checkoutCommit(fileURLToPath(new URL('.', import.meta.url))));
    const tls = readTlsFiles(process.env);
    const app = createApp({
      version,
      backendUrl,
      deviceUrl,
      timeoutMs,
      ...(backendReadToken ? { backendReadToken } : {}),
      log: (line) => console.log(line),
    });
    const server = await startServer({ fetch: app.fetch, port, host, tls });
    const { port: actual } = server.address() as { port: number };
    console.log(
      `frontend listening on ${host ?? 'all interfaces'} port ${actual}${tls ? ' over HTTPS' : ''}; ` +
        `backend ${redactUrl(backendUrl)}, ` +
        `device ${deviceUrl ? redactUrl(deviceUrl) : 'not monitored (DEVICE_URL is empty)'}; ` +
        `release ${version}`,
    );
    // In-flight /status.json requests end within two probe timeouts (the device list, then each device's
    // readings); past this limit something is stuck.
    installGracefulShutdown({
      log: plainShutdownLog('frontend'),
      delayMs: 0,
      timeoutMs: timeoutMs * 2 + 5000,
      steps: [{ name: 'http server', run: () => closeHttpServer(server) }],
    });
  },
  { jsonLog: false },
); // plain console output: the frontend is not a structured-log emitter
