// Runs the frontend: reads its config, listens, and on SIGTERM/SIGINT stops accepting, drains and exits 0.
import { fileURLToPath } from 'node:url';
import { runMain } from '../lib/run-main.ts';
import { readTlsFiles } from '../lib/tls-setting.ts';
import { closeHttpServer, installGracefulShutdown, plainShutdownLog } from '../lib/shutdown.ts';
import { startManagementServer } from '../lib/management-app.ts';
import { createApp } from './app.ts';
import { readConfig } from './config.ts';
import { planListeners, startListeners } from './listeners.ts';
import type { OperatorAccess } from './operator-access.ts';
import { createSignInMetrics } from './sign-in-metrics.ts';
import { readTokenList } from './secret-settings.ts';
import { reloadOnHangup } from './token-reload.ts';
import { redactUrl } from '../lib/redact-url.ts';
import { checkoutCommit, readReleaseId } from '../lib/release-id.ts';

runMain(
  'frontend',
  async function main() {
    const config = readConfig(process.env);
    const { host, backendUrl, deviceUrl, timeoutMs, access, backendReadToken } = config;
    const version = readReleaseId(process.env, () => checkoutCommit(fileURLToPath(new URL('.', import.meta.url))));
    const plan = planListeners(config.port, config.httpsPort, readTlsFiles(process.env));
    const log = (line: string) => console.log(line);
    let httpsActual: number | undefined;
    const httpsPort = () => config.httpsPublishedPort ?? httpsActual;
    const metrics = config.metricsPort === undefined ? undefined : createSignInMetrics();
    const signIns = metrics?.meter;
    const deps = { version, backendUrl, deviceUrl, timeoutMs, access, backendReadToken, log, httpsPort, signIns };
    // Outside local mode SIGHUP reads OPERATOR_TOKENS_FILE again; a removed token's sessions end.
    const readTokens = () => readTokenList(process.env, 'OPERATOR_TOKENS') ?? [];
    const onTokenReload = access === 'open' ? undefined : reloadOnHangup(readTokens, log);
    const app = createApp({ ...deps, onTokenReload });
    const servers = await startListeners(app.fetch, host, plan);
    // /metrics only here, never on the public ports: a stranger learns nothing of a guessing run from it.
    const management = await startManagementServer(metrics?.registry, config.metricsPort, host);
    const ports = servers.map((server) => (server.address() as { port: number }).port);
    if (plan.length === 2) httpsActual = ports[1];
    const listening = plan.length === 2 ? `port ${ports[0]}, HTTPS on port ${ports[1]}` : `port ${ports[0]}`;
    const metricsAt = management ? `; metrics on port ${(management.address() as { port: number }).port}` : '';
    console.log(
      `frontend listening on ${host ?? 'all interfaces'} ${listening}${plan[0]!.tls ? ' over HTTPS' : ''}` +
        `${metricsAt}; ` +
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
      // Both ports drain at once: a request on one waits on nothing on the other.
      steps: [
        { name: 'http server', run: () => Promise.all(servers.map((server) => closeHttpServer(server))) },
        ...(management ? [{ name: 'management server', run: () => closeHttpServer(management) }] : []),
      ],
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
