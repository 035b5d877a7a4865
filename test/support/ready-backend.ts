// A real backend on a MongoDB (the stand-in's URL), returned once /api/ready answers 200 and so does
// /api/ready/devices: device-socket tests need the database there before they send (acks follow stored writes),
// and the device thread running (sockets opened before it are held until it does).
import { waitFor } from './deadline.ts';
import { spawnService, type Service } from './spawn-service.ts';

export async function startReadyBackend(mongoUrl: string, env: Record<string, string> = {}): Promise<Service> {
  const backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: `${mongoUrl}/app`, ...env } });
  try {
    for (const path of ['/api/ready', '/api/ready/devices']) {
      await waitFor(async () => (await fetch(backend.url + path)).status === 200, {
        timeout: 10_000,
        what: `backend ${path} answering 200`,
      });
    }
  } catch (error) {
    await backend.stop();
    const output = backend.lines.slice(-10).join('\n');
    throw new Error(`${(error as Error).message}\n--- output of the backend ---\n${output}`);
  }
  return backend;
}
