// Loaded by test/run.ts into every test file it runs: SIGTERM (the runner's deadline) becomes an ordinary exit, so
// the spawn helpers' exit handlers stop the process groups the file started, which no signal to its own reaches.
process.once('SIGTERM', () => process.exit(143));
