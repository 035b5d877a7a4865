// The device thread's entry (device-thread.ts): Node 24 strips device-worker.ts's types itself, as it does the
// backend's; under Node 20 with `--import tsx`, a worker does not inherit tsx's hooks, so it registers them.
if (!process.features.typescript) (await import('tsx/esm/api')).register();
await import('./device-worker.ts');
