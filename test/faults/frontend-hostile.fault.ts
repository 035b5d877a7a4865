// Fault: the frontend's upstreams answer 200 and never end their bodies, one as fast as it is read, one a byte at
// a time, while clients ask for /status.json without pause: every answer within the probe timeout, memory bounded.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeService, type FakeRoute, type FakeService } from '../support/fake-http-server.ts';
import { spawnService, type Service } from '../support/spawn-service.ts';
import { stopAll } from '../support/spawn-process.ts';
import { DEVICE_LIST_MAX_BYTES } from '../../frontend/device-readings.ts';
import type { StatusDocument } from '../../frontend/status-document.ts';
import { mib, rssMiB } from './support/process-stats.ts';

const TIMEOUT_MS = 1500;
// /status.json may take one probe timeout; this is for a shared, busy machine.
const ANSWER_SLACK_MS = 1000;
// Resident memory over the frontend's level before the first /status.json. A round holds at most four 64 KiB
// bodies and one 4 MiB device list, and with clients asking back to back the garbage collector runs behind some
// 50 rounds a second (about +45 MiB measured); an unbounded read grew by hundreds of MiB a second.
const RSS_BOUND_MIB = 96;
const RUN_MS = 10_000;
const CLIENTS = 3;
const SAMPLE_MS = 100;

const every = (route: FakeRoute) => ({ '/api/health': route, '/api/ready': route, '/api/devices': route });
const ENDLESS = 'unreachable: body too large: more than 65536 bytes';
const TRICKLED = /^(unreachable|liveness): body not complete within 1500ms \(\d+ bytes received\)/;
const LIST_ENDLESS = `device list: body too large: more than ${DEVICE_LIST_MAX_BYTES} bytes`;

interface Case {
  backend: FakeRoute;
  device: FakeRoute;
  expect: { backend: string | RegExp; device: string | RegExp; readings: string | RegExp };
}

const CASES: Record<string, Case> = {
  'backend streams without end, device trickles': {
    backend: 'endless-body',
    device: 'trickle-body',
    expect: { backend: ENDLESS, device: TRICKLED, readings: LIST_ENDLESS },
  },
  'backend trickles, device streams without end': {
    backend: 'trickle-body',
    device: 'endless-body',
    expect: { backend: TRICKLED, device: ENDLESS, readings: /^device list: body not complete within 1500ms / },
  },
  'both stream without end (five endless reads at once)': {
    backend: 'endless-body',
    device: 'endless-body',
    expect: { backend: ENDLESS, device: ENDLESS, readings: LIST_ENDLESS },
  },
};

const test = suite('frontend under hostile upstreams');
const fakes: FakeService[] = [];
test.after.each(async () => {
  await stopAll();
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

interface Answer {
  ms: number;
  status?: number;
  doc?: StatusDocument;
  error?: string;
}

/** Samples the process's resident memory; kills it at once if it passes `limit`, so a leak cannot take the machine. */
function watchMemory(service: Service, limit: number) {
  let peak = 0;
  let killedAt: number | undefined;
  const timer = setInterval(() => {
    try {
      const rss = rssMiB(service.pid);
      peak = Math.max(peak, rss);
      if (rss > limit && killedAt === undefined) {
        killedAt = rss;
        service.signal('SIGKILL');
      }
    } catch {
      /* the process is gone: its exit is reported elsewhere */
    }
  }, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      return { peak, killedAt };
    },
  };
}

async function askRepeatedly(url: string, until: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  while (Date.now() < until) {
    const started = performance.now();
    try {
      const res = await fetch(`${url}/status.json`, { signal: AbortSignal.timeout(TIMEOUT_MS + 10_000) });
      const doc = (await res.json()) as StatusDocument;
      answers.push({ ms: performance.now() - started, status: res.status, doc });
    } catch (error) {
      answers.push({ ms: performance.now() - started, error: (error as Error).message });
      if (answers.filter((a) => a.error).length > 3) break; // the frontend is gone or stuck: stop asking
    }
  }
  return answers;
}

const matches = (actual: string | null | undefined, expected: string | RegExp) =>
  typeof expected === 'string' ? actual === expected : expected.test(actual ?? '');

for (const [name, c] of Object.entries(CASES)) {
  test(
    `${name}: every /status.json 200 within ${TIMEOUT_MS} + ${ANSWER_SLACK_MS} ms, each service unreachable ` +
      `with its one-line reason, resident memory within ${RSS_BOUND_MIB} MiB of its start`,
    async () => {
      const backend = await startFakeService(every(c.backend));
      const device = await startFakeService(every(c.device));
      fakes.push(backend, device);
      const frontend = await spawnService('frontend/main.ts', {
        env: {
          // Local mode: the fleet is shown to everyone, as these checks need (sign-in: frontend-tls-browser.test.ts).
          NODE_ENV: 'local',
          BACKEND_URL: backend.url,
          DEVICE_URL: device.url,
          STATUS_TIMEOUT_MS: String(TIMEOUT_MS),
        },
        waitPath: '/',
      });
      const warm = rssMiB(frontend.pid);
      const memory = watchMemory(frontend, warm + RSS_BOUND_MIB);
      const until = Date.now() + RUN_MS;
      const answers = (
        await Promise.all(Array.from({ length: CLIENTS }, () => askRepeatedly(frontend.url, until)))
      ).flat();
      const { peak, killedAt } = memory.stop();
      const slowest = Math.max(...answers.map((a) => a.ms));
      console.log(
        `    measured: ${answers.length} answers, slowest ${Math.round(slowest)} ms; ` +
          `RSS ${mib(warm)} at start, peak ${mib(peak)} (+${mib(peak - warm)})`,
      );
      assert.is(
        killedAt,
        undefined,
        `killed at ${mib(killedAt ?? 0)}: more than ${RSS_BOUND_MIB} MiB over ${mib(warm)}`,
      );
      assert.is(frontend.child.exitCode, null, `the frontend exited:\n${frontend.lines.slice(-5).join('\n')}`);
      assert.ok(answers.length >= CLIENTS * 2, `only ${answers.length} answers in ${RUN_MS} ms`);
      for (const answer of answers) {
        assert.is(answer.error, undefined, `a request failed: ${answer.error}`);
        assert.is(answer.status, 200);
        assert.ok(answer.ms <= TIMEOUT_MS + ANSWER_SLACK_MS, `an answer took ${Math.round(answer.ms)} ms`);
        const { services, readings } = answer.doc!;
        assert.ok(matches(services.backend.problem, c.expect.backend), `backend: ${services.backend.problem}`);
        assert.ok(matches(services.device?.problem, c.expect.device), `device: ${services.device?.problem}`);
        assert.ok(matches(readings.problem, c.expect.readings), `readings: ${readings.problem}`);
      }
    },
  );
}

test.run();
