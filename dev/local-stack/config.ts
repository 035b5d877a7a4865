// The local stack's settings from the environment: ports, where the database comes from, deadlines, artifacts.
import { join } from 'node:path';
import { readInteger, readPort, readString } from '../../lib/env.ts';
import { projectRoot } from '../../tools/project-root.ts';

export interface StackConfig {
  backendPort: number;
  devicePort: number;
  frontendPort: number;
  /** Port for a mongod or the stand-in; unset: any free port. */
  mongoPort: number | undefined;
  mongodbUri: string | undefined;
  /** HOST for the services; unset: every interface. */
  host: string | undefined;
  readyTimeoutMs: number;
  probeTimeoutMs: number;
  artifacts: string;
  /** Where the smoke writes its result (its --json), for a tool that runs the stack to read; unset: nowhere. */
  smokeJson: string | undefined;
}

export function readStackConfig(env: NodeJS.ProcessEnv): StackConfig {
  const mongoPort = readString(env, 'MONGO_PORT') === undefined ? undefined : readPort(env, 'MONGO_PORT', 0);
  return {
    backendPort: readPort(env, 'BACKEND_PORT', 3001),
    devicePort: readPort(env, 'DEVICE_PORT', 3003),
    frontendPort: readPort(env, 'FRONTEND_PORT', 3000),
    mongoPort,
    mongodbUri: readString(env, 'MONGODB_URI'),
    host: readString(env, 'HOST'),
    readyTimeoutMs: readInteger(env, 'STACK_READY_TIMEOUT_MS', 60_000, { min: 100, max: 600_000 }),
    probeTimeoutMs: readInteger(env, 'SMOKE_TIMEOUT_MS', 10_000, { min: 100, max: 600_000 }),
    artifacts: readString(env, 'SMOKE_ARTIFACTS', join(projectRoot, 'smoke-artifacts', 'local')),
    smokeJson: readString(env, 'SMOKE_JSON'),
  };
}

/** The address to reach a service at: its HOST when that is one address, else loopback. */
export function baseUrl(host: string | undefined, port: number): string {
  if (!host || host === '0.0.0.0' || host === '::') return `http://127.0.0.1:${port}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
