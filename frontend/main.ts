// Runs the frontend: reads its config, listens, and on SIGTERM/SIGINT stops accepting, drains and exits 0.
import { fileURLToPath } from 'node:url';
import { runMain } from '../lib/run-main.ts';
import { startServer } from '../lib/serve.ts';
import { readTlsFiles } from '../lib/tls-setting.ts';
import { closeHttpServer, installGracefulShutdown, plainShutdownLog } from '../lib/shutdown.ts';
import { createApp } from './app.ts';
import { readConfig } from './config.ts';
import type { OperatorAccess } from './operator-access.ts';
import { redactUrl } from '../lib/redact-url.ts';
import { checkoutCommit, readReleaseId } from '../lib/release-id.ts';

runMain(
  'frontend',
  async function main() {
    const { port, host, backendUrl, deviceUrl, timeoutMs, access, backendReadToken } = readConfig(process.env);
    const version = readReleaseId(process.env, () => checkoutCommit(fileURLToPath(new URL('.', import.meta.url))));
    const tls = readTlsFiles(process.env);
    const log = (line: string) => console.log(line);
    const app = createApp({ version, backendUrl, deviceUrl, timeoutMs, access, backendReadToken, log });
    const server = await startServer({ fetch: app.fetch, port, host, tls });
    const { port: actual } = server.address() as { port: number };
    console.log(
      `frontend listening on ${host ?? 'all interfaces'} port ${actual}${tls ? ' over HTTPS' : ''}; ` +
        `backend ${redactUrl(backendUrl)}, ` +
        `device ${deviceUrl ? redactUrl(deviceUrl) : 'not monitored (DEVICE_URL is empty)'}; ` +
        `release ${version}; ` +
        `fleet and readings ${operatorLine(access)}`,
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

/** How many may sign in, never who: the start-up line names no token. */
function operatorLine(access: OperatorAccess): string {
  if (access === 'open') return 'open to everyone (NODE_ENV=local)';
  const n = access.tokens.length;
  return n === 0 ? 'shown to nobody (no OPERATOR_TOKENS_FILE)' : `for operators (${n} token${n === 1 ? '' : 's'})`;
}
