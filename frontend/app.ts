// Builds the frontend's Hono app: the status page's static files and /status.json; never listens or reads env.
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { accessLog, type LogLine } from './access-log.ts';
import { loadStaticFiles, staticFiles } from './static-files.ts';
import { createStatusCollector } from './status-collector.ts';
import { operatorAccess, type OperatorAccess } from './operator-access.ts';
import type { SignInMeter } from './sign-in-metrics.ts';
import type { ReadingsStatus, StatusDocument } from './status-document.ts';

export const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));

export interface FrontendDeps {
  /** The frontend's own release (lib/release-id.ts): /status.json's `version`, shown on the page. */
  version: string;
  backendUrl: string;
  /** Undefined: the device panel is disabled. */
  deviceUrl?: string;
  /** Per-probe timeout for /status.json. */
  timeoutMs: number;
  /** Who sees the fleet and readings: `open` in local mode, else the operators' tokens. */
  access: OperatorAccess;
  /** Sent as `Authorization: Bearer` when reading the backend's device data (BACKEND_READ_TOKEN_FILE). */
  backendReadToken?: string;
  log: LogLine;
  /** Where this frontend serves HTTPS as the browser sees it, once listening: named when sign-in is refused. */
  httpsPort?: () => number | undefined;
  /** Counts refused sign-ins for the management port's /metrics (frontend/sign-in-metrics.ts). */
  signIns?: SignInMeter;
  /** Given once: what replaces the operators' tokens and ends the removed ones' sessions (frontend/token-reload.ts). */
  onTokenReload?: (setTokens: (tokens: readonly string[]) => number) => void;
  publicDir?: string;
}

/** What a stranger's /status.json says in place of the fleet: nothing listed, and how to see it. */
const FOR_OPERATORS = 'sign in as an operator (/sign-in) to see the fleet and its readings';
const hiddenReadings = (): ReadingsStatus => ({
  available: false,
  problem: FOR_OPERATORS,
  total: 0,
  devices: [],
  attention: { available: false, problem: FOR_OPERATORS, devices: [] },
  latest: null,
});

export function createApp(deps: FrontendDeps): Hono {
  const { version, backendUrl, deviceUrl, timeoutMs, access, backendReadToken, log, httpsPort } = deps;
  const { publicDir = PUBLIC_DIR, signIns, onTokenReload } = deps;
  const collector = createStatusCollector({ version, backendUrl, deviceUrl, timeoutMs, backendReadToken });
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
        // The sign-in and sign-out forms post to this origin, and nowhere else.
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
      xFrameOptions: 'DENY',
      // Plain HTTP in local mode and behind the container check; HSTS would pin a host that also answers plainly.
      strictTransportSecurity: false,
    }),
  );
  app.use(staticFiles(loadStaticFiles(publicDir)));
  // A form posted from another site (Origin not this one) is refused there, on top of the cookie's SameSite=Strict.
  const gate = operatorAccess(app, access, { httpsPort, log, meter: signIns });
  onTokenReload?.(gate.setTokens);

  app.get('/status.json', async function statusJson(c) {
    const collected = await collector.collect();
    const operator = gate.isOperator(c);
    // Spring Boot's show-details: when-authorized: everyone sees the services' health, only operators the fleet.
    const document: StatusDocument = {
      ...collected,
      operator,
      readings: operator ? collected.readings : hiddenReadings(),
    };
    // Always 200: the document reports the services' health; a non-2xx here would read as the frontend failing.
    return c.json(document, 200, { 'Cache-Control': 'no-store', Vary: 'Cookie' });
  });

  app.notFound((c) =>
    c.text(`Not found: ${c.req.path}. The status page is at / and its data at /status.json.\n`, 404, {
      'Cache-Control': 'no-store',
    }),
  );
  return app;
}
