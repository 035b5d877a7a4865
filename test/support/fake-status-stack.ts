// Test support: the status page in real Chromium, served by a real frontend process whose backend and device are fake
// services (test/support/fake-http-server.ts): healthy and ready by default, with the routes a test adds or changes,
// so what the page must show is known exactly.
import { mkdirSync } from 'node:fs';
import type { Page } from 'puppeteer-core';
import { test } from 'uvu';
import { launchBrowser, type LaunchedBrowser } from '../../smoke/browser.ts';
import { healthyBody, readyBody, startFakeService, type FakeRoute, type FakeService } from './fake-http-server.ts';
import { openWatchedPage } from './watched-page.ts';
import { spawnService, type Service } from './spawn-service.ts';
import { stopAll } from './spawn-process.ts';

export interface FakeStatusStack {
  backend: FakeService;
  device: FakeService;
  frontend: Service;
  /** A watched page (test/support/watched-page.ts), not yet at the frontend. */
  page: Page;
  /** What the page reported: console errors and warnings, uncaught exceptions, failed requests. */
  problems: string[];
  close(): Promise<void>;
}

export interface FakeStatusStackOptions {
  /** Added to (or replacing) the backend's healthy /api/health and ready /api/ready. */
  backend?: Record<string, FakeRoute>;
  /** Added to (or replacing) the device's healthy /api/health and ready /api/ready. */
  device?: Record<string, FakeRoute>;
  statusTimeoutMs: number;
}

export async function startFakeStatusStack(options: FakeStatusStackOptions): Promise<FakeStatusStack> {
  const services: FakeService[] = [];
  let launched: LaunchedBrowser | undefined;
  const close = async () => {
    await launched?.close();
    await stopAll();
    for (const service of services) await service.close();
  };
  try {
    const backend = await startFakeService({
      '/api/health': { status: 200, body: healthyBody() },
      '/api/ready': { status: 200, body: readyBody('ready', { database: 'connected' }) },
      ...options.backend,
    });
    services.push(backend);
    const device = await startFakeService({
      '/api/health': { status: 200, body: healthyBody({ environment: 'local' }) },
      '/api/ready': { status: 200, body: readyBody('ready', { serial: 'emulator', backend: 'connected' }) },
      ...options.device,
    });
    services.push(device);
    const frontend = await spawnService('frontend/main.ts', {
      env: {
        // Local mode: the fleet is shown to everyone, as these checks need (sign-in: frontend-tls-browser.test.ts).
        NODE_ENV: 'local',
        BACKEND_URL: backend.url,
        DEVICE_URL: device.url,
        STATUS_TIMEOUT_MS: String(options.statusTimeoutMs),
      },
      waitPath: '/',
    });
    launched = await launchBrowser();
    const problems: string[] = [];
    const page = await openWatchedPage(launched.browser, problems);
    return { backend, device, frontend, page, problems, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The stack a browser test file shares: started before its first test (with `shots`, the folder for its screenshots),
 * and closed after its last. Its fields are there from the first test on.
 */
export function fakeStatusStackPerFile(options: FakeStatusStackOptions & { shots?: string }): FakeStatusStack {
  const shared = {} as FakeStatusStack;
  test.before(async () => {
    if (options.shots) mkdirSync(options.shots, { recursive: true });
    Object.assign(shared, await startFakeStatusStack(options));
  });
  test.after(() => shared.close?.());
  return shared;
}
