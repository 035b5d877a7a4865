// What the containers say about a failure: for each service that is unhealthy or whose probe failed, the last lines
// of its container log and its health-check log (secrets redacted), the cause in one phrase where they give one,
// and all of it as a section of the failure report.
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { redactUrlsIn } from '../../lib/redact-url.ts';
import { explain, runCommand } from '../../tools/child-process.ts';
import { REPORT_NAME } from '../artifacts.ts';
import { fenced } from '../failure-report.ts';

export interface ServiceEvidence {
  service: string;
  /** running, exited, restarting…, as compose reports it. */
  state: string;
  /** healthy, unhealthy, starting, or '' for a service without a health check. */
  health: string;
  /** Why it was picked: a probe of it failed, or it is not running healthy. */
  probed: boolean;
  /** Its container log's last lines, oldest first; undefined when they could not be read (see `problem`). */
  log?: string[];
  /** Its health checks' last results, oldest first (docker keeps five). */
  checks: { exitCode: number; output: string }[];
  problem?: string;
}

/** Every service picked, or why none could be looked at (the engine is gone, compose failed). */
export type Evidence = { services: ServiceEvidence[] } | { problem: string };

export interface EvidenceOptions {
  runtime: string;
  /** `compose -f … -p …`: the project's own command. */
  compose: string[];
  /** Services whose probe failed; each one not running healthy is added. */
  probed: string[];
  env: NodeJS.ProcessEnv;
}

const COMMAND_TIMEOUT_MS = 30_000;
// Enough of a log to find its last warning among request lines; the report shows the end of it.
const LOG_LINES = 200;
const SHOWN_LOG_LINES = 30;
const MAX_PHRASE = 160;
// Environment variables whose values are secrets wherever they appear (a token the backend echoes, a password).
const SECRET_VARIABLE = /token|secret|pass|pwd|key|credential/i;

export async function gatherEvidence({ runtime, compose, probed, env }: EvidenceOptions): Promise<Evidence> {
  const run = (args: string[]) => runCommand(runtime, args, { env, timeoutMs: COMMAND_TIMEOUT_MS });
  const ps = await run([...compose, 'ps', '--all', '--format', 'json']);
  const rows = ps.code === 0 ? psRows(ps.stdout) : undefined;
  if (!rows) {
    const why = ps.code === 0 ? `it printed "${ps.stdout.trim().slice(0, 80)}"` : explain(`${runtime} compose ps`, ps);
    return { problem: `the containers could not be listed (${redact(why, env)})` };
  }
  const picked = rows.filter(
    (row) => probed.includes(row.Service) || row.State !== 'running' || !['healthy', ''].includes(row.Health ?? ''),
  );
  const services: ServiceEvidence[] = [];
  for (const row of picked) {
    const evidence: ServiceEvidence = {
      service: row.Service,
      state: row.State,
      health: row.Health ?? '',
      probed: probed.includes(row.Service),
      checks: [],
    };
    const logs = await run([
      ...compose,
      'logs',
      '--no-color',
      '--no-log-prefix',
      '--tail',
      String(LOG_LINES),
      row.Service,
    ]);
    if (logs.code === 0) evidence.log = lines(redact(plainText(`${logs.stdout}\n${logs.stderr}`), env));
    else evidence.problem = `its log could not be read (${redact(explain(`${runtime} compose logs`, logs), env)})`;
    const inspect = await run(['inspect', '--format', '{{json .State.Health}}', row.ID]);
    if (inspect.code === 0) evidence.checks = healthEntries(inspect.stdout, env);
    services.push(evidence);
  }
  return { services };
}

interface PsRow {
  ID: string;
  Service: string;
  State: string;
  Health?: string;
}

/** `compose ps --format json`: one object per line (Compose 2.21+) or one array (before); undefined if neither. */
function psRows(stdout: string): PsRow[] | undefined {
  try {
    const text = stdout.trim();
    if (text === '') return [];
    const parsed: unknown = text.startsWith('[') ? JSON.parse(text) : lines(text).map((line) => JSON.parse(line));
    const rows = parsed as PsRow[];
    return rows.every((row) => typeof row?.Service === 'string' && typeof row.ID === 'string') ? rows : undefined;
  } catch {
    return undefined;
  }
}

function healthEntries(stdout: string, env: NodeJS.ProcessEnv): ServiceEvidence['checks'] {
  try {
    const health = JSON.parse(stdout) as { Log?: { ExitCode: number; Output: string }[] } | null;
    return (health?.Log ?? []).map((entry) => ({ exitCode: entry.ExitCode, output: redact(entry.Output ?? '', env) }));
  } catch {
    return [];
  }
}

const lines = (text: string) => text.split(/\r?\n/).filter((line) => line.trim() !== '');
// `compose logs` starts each line with an erase-line code even with --no-color; a pretty log may hold colours.
const plainText = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

/** Credentials in URLs, as everywhere (lib/redact-url.ts), and the values of secret variables the stack was given. */
function redact(text: string, env: NodeJS.ProcessEnv): string {
  let hidden = redactUrlsIn(text);
  for (const [name, value] of Object.entries(env))
    if (value && value.length >= 8 && SECRET_VARIABLE.test(name)) hidden = hidden.split(value).join('***');
  return hidden;
}

/**
 * What a service's log says went wrong, in one phrase: the last warning or error of a JSON log line (its
 * `reason`, its error's message, else its `msg`), or of a text log the last line that names a failure. A warning
 * about one of `topics` (the failing checks: a line with a `database` field) wins over later ones, which are
 * mostly consequences (a read refused because the database is down). With `since` (when the smoke started, ms), a
 * warning logged before it bears on the failure only when it is about one of `topics`: the service came up
 * healthy after it, so a start-up warning such as DEVICE_TOKEN's says nothing of a probe that failed later.
 * Errors always bear.
 */
export function logCause(log: string[], topics: string[] = [], since?: number): string | undefined {
  const entries = log.map(parseEntry);
  const onTopic = (entry: LogEntry) => topics.some((topic) => entry.fields.includes(topic));
  const bears = (entry: LogEntry) =>
    entry.level >= 50 || since === undefined || entry.time === undefined || entry.time >= since || onTopic(entry);
  const warnings = entries.filter((entry) => entry && entry.level >= 40 && bears(entry)) as LogEntry[];
  const explained = warnings.filter((entry) => entry.cause !== undefined);
  const json = explained.filter(onTopic).at(-1)?.cause ?? explained.at(-1)?.cause ?? warnings.at(-1)?.msg;
  if (json) return phrase(json);
  const text = log.filter((line, i) => !entries[i] && FAILURE_WORDS.test(line)).at(-1);
  return text === undefined ? undefined : phrase(text);
}

const FAILURE_WORDS =
  /\b(error|fatal|fail(ed|ure)?|refused|denied|cannot|unable|not found|ENOTFOUND|ECONN\w+|EACCES)\b/i;

interface LogEntry {
  level: number;
  msg?: string;
  cause?: string;
  fields: string[];
  /** pino's `time`: ms since the epoch. */
  time?: number;
}

function parseEntry(line: string): LogEntry | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (typeof entry.level !== 'number') return undefined;
    const err = entry.err as { message?: unknown } | undefined;
    const cause = [entry.reason, err?.message, entry.error].find((value) => typeof value === 'string') as string;
    const msg = typeof entry.msg === 'string' ? entry.msg : undefined;
    const time = typeof entry.time === 'number' ? entry.time : undefined;
    return { level: entry.level, msg, cause, fields: Object.keys(entry), time };
  } catch {
    return undefined;
  }
}

// A check the engine could not start is reported through layers of wrappers; what the check's command lacked is
// at the end (`exec: "curl": executable file not found in $PATH`).
const EXEC_WRAPPERS = /^OCI runtime exec failed: (exec failed: )?(unable to start container process: )?/;

/** Why the health check failed, in one phrase: the last line of its last failing run. */
export function healthCause(checks: ServiceEvidence['checks']): string | undefined {
  const failed = checks.filter((entry) => entry.exitCode !== 0).at(-1);
  const said = failed && lines(failed.output).at(-1)?.trim().replace(EXEC_WRAPPERS, '');
  if (failed === undefined) return undefined;
  return phrase(said || `exit ${failed.exitCode}, nothing printed`);
}

const phrase = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_PHRASE ? `${flat.slice(0, MAX_PHRASE - 1)}…` : flat;
};

/**
 * `(backend log: getaddrinfo ENOTFOUND database)`: the cause the evidence gives for a service, its log's when it
 * names one (a probe failed: why the service is not right), else its health check's; empty when neither does.
 */
export function causeOf(
  evidence: Evidence,
  service: string,
  { prefer = 'log', topics = [], since }: { prefer?: 'log' | 'health'; topics?: string[]; since?: number } = {},
): string {
  if ('problem' in evidence) return '';
  const found = evidence.services.find((entry) => entry.service === service);
  if (!found) return '';
  const log = found.log && logCause(found.log, topics, since);
  const health = healthCause(found.checks);
  const [first, second] = prefer === 'log' ? [log, health] : [health, log];
  const label = (text: string) => `${service} ${text === log ? 'log' : 'health check'}: ${text}`;
  const cause = first ?? second;
  return cause === undefined ? '' : label(cause);
}

/** The services' part of the failure report, in markdown. */
export function evidenceSection(evidence: Evidence, project: string): string {
  const head = `## Containers (compose project ${project})\n\n`;
  if ('problem' in evidence) return `${head}Container logs could not be read: ${evidence.problem}.\n`;
  if (evidence.services.length === 0) return `${head}Every service is running healthy.\n`;
  return head + evidence.services.map(serviceSection).join('\n');
}

function serviceSection(entry: ServiceEvidence): string {
  const why = entry.probed ? 'its probe failed' : 'not running healthy';
  const log = entry.log?.slice(-SHOWN_LOG_LINES);
  return [
    `### ${entry.service}: ${entry.state}${entry.health ? `, ${entry.health}` : ''} (${why})`,
    '',
    ...(entry.problem ? [`${entry.problem[0]!.toUpperCase()}${entry.problem.slice(1)}.`, ''] : []),
    ...(log ? logLines(log) : []),
    entry.checks.length ? 'Health-check log:' : 'Health-check log: none (no health check ran).',
    '',
    ...entry.checks.map((check) => `- exit ${check.exitCode}: ${phrase(check.output) || '(nothing printed)'}`),
    '',
  ].join('\n');
}

/** A container that printed nothing yet (found unhealthy while starting) gets a sentence, not an empty block. */
function logLines(log: string[]): string[] {
  if (log.length === 0) return ['Log: nothing printed yet.', ''];
  return [log.length === 1 ? 'Last log line:' : `Last ${log.length} log lines:`, '', fenced(log.join('\n'))];
}

/**
 * Adds the section to the smoke's report when it wrote one, else writes a report of the trailer's own (the stack
 * never came up, or the smoke left no result); returns its path, or undefined when it could not be written.
 */
export async function addToReport(
  artifacts: string,
  smokeReport: string | null | undefined,
  heading: string,
  section: string,
): Promise<string | undefined> {
  try {
    if (smokeReport) {
      await appendFile(smokeReport, `\n${section}`);
      return smokeReport;
    }
    const path = join(artifacts, REPORT_NAME);
    await mkdir(artifacts, { recursive: true });
    await writeFile(path, `# ${heading}\n\n${section}`);
    return path;
  } catch {
    return undefined;
  }
}
