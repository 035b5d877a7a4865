// One process that runs many unit files in turn (test/run.ts's batches): the runner writes their paths to its stdin,
// one a line, and it answers on the results channel with each file's start, output and uvu counts. It saves each
// file a process start with tsx. A file must leave nothing running (a timer, a server, a socket): once its stdin
// ends the batch must exit by itself, and when it does not, it says what is still open and after which files.
import { createInterface } from 'node:readline';
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../../tools/project-root.ts';
import { BUNDLES_ENV } from './bundles.ts';
import { takeChannel, writeRecord } from './results-channel.ts';
import { divertOutput } from './divert-output.ts';
import { tallyUvuSuites } from './uvu-suites.ts';

/** How long the batch may stay up after its last file before it reports itself stuck. */
const STUCK_AFTER_MS = Number(process.env.TEST_BATCH_STUCK_MS ?? 5000);

if (!takeChannel()) {
  console.error('test/runner/unit-batch.ts is started by test/run.ts (it answers on the results channel)');
  process.exit(2);
}
// uvu's CLI mode: files only queue their suites, and exec() runs them (node_modules/uvu/run does the same).
(globalThis as { UVU_DEFER?: number }).UVU_DEFER = 1;
const tally = tallyUvuSuites();
const { exec } = await import('uvu');
const suspects: string[] = [];
// Started from its bundle, the batch runs each file's bundle (compile-tests.ts); with tsx, the file itself.
const bundles = process.env[BUNDLES_ENV];
delete process.env[BUNDLES_ENV];
// What the batch itself holds (its stdio pipes): not counted as left open by a file. Node opens stdout and stderr
// when first used (tsx used them as it loaded; a batch started from its bundle had not).
void [process.stdout, process.stderr];
const baseline = process.getActiveResourcesInfo();

async function runOne(file: string): Promise<void> {
  writeRecord({ kind: 'start', file });
  const before = process.getActiveResourcesInfo();
  tally.reset();
  (globalThis as { UVU_QUEUE?: unknown[][] }).UVU_QUEUE!.push([file]);
  const restore = divertOutput((text) => writeRecord({ kind: 'output', text }));
  let error: string | undefined;
  try {
    await import(pathToFileURL(pathOf(file)).href);
    await exec();
  } catch (thrown) {
    error = thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
  } finally {
    restore();
  }
  process.exitCode = 0; // uvu sets it per file; the counts above carry the outcome
  const left = grown(before, process.getActiveResourcesInfo());
  if (left.length) suspects.push(`${file} (${left.join(', ')})`);
  writeRecord({ kind: 'done', file, suites: tally.suites, queued: tally.queued, left, ...(error ? { error } : {}) });
}

function pathOf(file: string): string {
  if (bundles) return join(bundles, file.replace(/\.ts$/, '.js'));
  return isAbsolute(file) ? file : join(projectRoot, file);
}

/**
 * Requests in flight (an fs call, a lookup, a write: FSReqPromise, GetAddrInfoReqWrap, WriteWrap …) end by
 * themselves; Node 24 lists the batch's own reads among them. Only handles (timers, servers, sockets) stay open.
 */
const isRequest = (kind: string) => /Req|^(Write|Shutdown|Connect)Wrap$/.test(kind);

/** The kinds of handle there are more of than before (Timeout, TCPServerWrap, …), each as often as it grew. */
function grown(before: string[], after: string[]): string[] {
  const left = [...before];
  return after.filter((kind) => {
    if (isRequest(kind)) return false;
    const index = left.indexOf(kind);
    if (index === -1) return true;
    left.splice(index, 1);
    return false;
  });
}

for await (const line of createInterface({ input: process.stdin })) if (line.trim()) await runOne(line.trim());
// The timer does not keep the batch alive: it fires only when something a file left does.
setTimeout(() => {
  writeRecord({ kind: 'stuck', open: grown(baseline, process.getActiveResourcesInfo()), suspects });
  process.exit(1);
}, STUCK_AFTER_MS).unref();
