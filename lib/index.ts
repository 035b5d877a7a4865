// The kit's entry point (`import … from 'service-health-kit'`): only re-exports, so what ships is named here.
export { createReadiness } from './readiness.ts';
export type { CheckDetail, Readiness, ReadinessListener, ReadinessOptions, ReadinessSnapshot } from './readiness.ts';
export { createHealthRoutes } from './health-routes.ts';
export type { HealthRoutesOptions } from './health-routes.ts';
export { closeHttpServer, installGracefulShutdown, plainShutdownLog } from './shutdown.ts';
export type { ClosableServer, ShutdownLog, ShutdownOptions, ShutdownStep } from './shutdown.ts';
