// Builds the frontend's Hono app: the status page's static files and /status.json; never listens or reads env.
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { accessLog, type LogLine } from './access-log.ts';
import { loadStaticFiles, staticFiles } from './static-files.ts';
import { createStatusCollector } from './status-collector.ts';

export const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));

export interface FrontendDeps {
  /** The frontend's own release (lib/release-id.ts): /status.json's `version`, shown on the page. */
  version: string;
  backendUrl: string;
  /** Undefined: the device panel is disabled. */
  deviceUrl?: string;
  /** Per-probe timeout for /status.json. */
  timeoutMs: number;
  /** BACKEND_READ_TOKEN: the credential the status page reads device data from the backend with. */
  backendReadToken?: string;
  log: LogLine;
  publicDir?: string;
}

export function createApp(deps: FrontendDeps): Hono {
  const { version, backendUrl, deviceUrl, timeoutMs, backendReadToken, log, publicDir = PUBLIC_DIR } = deps;
  const collector = createStatusCollector({
    version,
    backendUrl,
    deviceUrl,
    timeoutMs,
    ...(backendReadToken ? { backendReadToken } : {}),
  });
  const app = new Hono();

  app.use(accessLog(log));
  app.use(
    secureHeaders({
      // Everything comes from this origin; the page has no inline script or style to allow.
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
        frameAncestors: ["'none'"],
      },
      xFrameOptions: 'DENY',
      // Served over plain HTTP here; HSTS belongs to whatever terminates TLS in front of it.
      strictTransportSecurity: false,
    }),
  );
  app.use(staticFiles(loadStaticFiles(publicDir)));

  app.get('/status.json', async function statusJson(c) {
    const document = await collector.collect();
    // Always 200: the document reports the services' health; a non-2xx here would read as the frontend failing.
    return c.json(document, 200, { 'Cache-Control': 'no-store' });
  });

  app.notFound((c) => c.text(`Not found: ${c.req.path}. The status page is at / and its data at /status.json.\n`, 404));
  return app;
}
