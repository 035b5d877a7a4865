// Runs the frontend: reads settings, listens, and on SIGTERM/SIGINT stops accepting, drains and exits 0.
import type { Server } from 'node:http';
import { runMain } from '../lib/run-main.ts';
import { startServer } from '../lib/serve.ts';
import { closeHttpServer } from '../lib/shutdown.ts';
import { createApp } from './app.ts';
import { readConfig } from './config.ts';

runMain('frontend', async function main() {
  const { port, host, backendUrl, deviceUrl, timeoutMs } = readConfig(process.env);
  const app = createApp({ backendUrl, deviceUrl, timeoutMs, log: (line) => console.log(line) });
  const server = await startServer({ fetch: app.fetch, port, host });
  const { port: actual } = server.address() as { port: number };
  console.log(
    `frontend listening on ${host ?? 'all interfaces'} port ${actual}; ` +
      `backend ${backendUrl}, device ${deviceUrl ?? 'not monitored (DEVICE_URL is empty)'}`,
  );
  handleSignals(server, timeoutMs + 5000);
}, { jsonLog: false }); // plain console output: the frontend is not a structured-log emitter

function handleSignals(server: Server, hardLimitMs: number) {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      console.log(`frontend: second ${signal}, exiting now`);
      process.exit(1);
    }
    stopping = true;
    console.log(`frontend: ${signal} received, finishing open requests`);
    // In-flight /status.json requests end within the probe timeout; past this limit something is stuck.
    setTimeout(() => {
      console.log(`frontend: requests still open after ${hardLimitMs} ms, exiting with code 1`);
      process.exit(1);
    }, hardLimitMs).unref();
    await closeHttpServer(server);
    console.log('frontend: stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
