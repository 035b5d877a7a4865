// Turns a /status.json document into what the board shows (words, tones, rows); pure, so it is tested in Node.
import { formatBytes, formatClock, formatCount, formatDuration } from './format.js';
import { describeReadings } from './readings-view.js';

export { formatAge, formatClock, formatDuration } from './format.js';

/** How often the page asks for /status.json. */
export const REFRESH_MS = 2000;

/** The longest reason a failing check shows (the services send at most 200 characters). */
const MAX_REASON = 200;

const TITLES = { backend: 'Backend', device: 'Device service' };

const LIVENESS = {
  ok: { tone: 'good', text: 'OK' },
  failing: { tone: 'bad', text: 'Failing' },
  unreachable: { tone: 'bad', text: 'Unreachable' },
};

const READINESS = {
  ready: { tone: 'good', text: 'Ready' },
  not_ready: { tone: 'warn', text: 'Not ready' },
  shutting_down: { tone: 'warn', text: 'Shutting down' },
  failing: { tone: 'bad', text: 'Failing' },
  unreachable: { tone: 'bad', text: 'Unreachable' },
};

const UNKNOWN = { tone: 'muted', text: 'Unknown' };

/**
 * @param {import('../status-document.ts').StatusDocument | null} doc the last document received, if any
 * @param {{ fetchError?: string | null }} [options] why the latest refresh failed, if it did
 */
export function describeBoard(doc, { fetchError = null } = {}) {
  if (!doc) {
    return {
      summary: fetchError
        ? { tone: 'bad', text: `Status unavailable: ${fetchError}` }
        : { tone: 'muted', text: 'Checking services…' },
      refreshed: null,
      stale: Boolean(fetchError),
      panels: [],
      release: null,
    };
  }
  const services = [doc.services.backend, doc.services.device].filter(Boolean);
  const panels = [describeService(doc.services.backend)];
  panels.push(doc.services.device ? describeService(doc.services.device) : disabledDevicePanel());
  panels.push(describeReadings(doc));
  const refreshed = { iso: doc.checkedAt, text: formatClock(doc.checkedAt) };
  const summary = fetchError
    ? { tone: 'bad', text: `Status unavailable: ${fetchError}. Showing the data from ${refreshed.text}.` }
    : summarize(services);
  return { summary, refreshed, stale: Boolean(fetchError), panels, release: doc.version ?? null };
}

function summarize(services) {
  const troubled = services
    .map((s) => ({ s, verdict: serviceVerdict(s) }))
    .filter(({ verdict }) => verdict.tone !== 'good');
  if (troubled.length === 0)
    return { tone: 'good', text: services.length > 1 ? 'All services ready' : 'Backend ready' };
  const tone = troubled.some(({ verdict }) => verdict.tone === 'bad') ? 'bad' : 'warn';
  return {
    tone,
    text: troubled.map(({ s, verdict }) => `${TITLES[s.name]}: ${verdict.text.toLowerCase()}`).join(' · '),
  };
}

function serviceVerdict(s) {
  if (s.liveness !== 'ok') return LIVENESS[s.liveness] ?? UNKNOWN;
  if (s.readiness === 'unreachable') return { tone: 'bad', text: 'Readiness unreachable' };
  return READINESS[s.readiness] ?? UNKNOWN;
}

function describeService(s) {
  const checks = Object.entries(s.checks);
  const rows = [
    { label: 'Liveness', ...(LIVENESS[s.liveness] ?? UNKNOWN) },
    { label: 'Readiness', ...(READINESS[s.readiness] ?? UNKNOWN) },
    ...(checks.length
      ? checks.map(([name, state]) => checkRow(name, state, s.details?.[name]))
      : [{ label: 'Checks', text: 'unknown', tone: 'muted', check: true }]),
    { label: 'Uptime', text: s.uptime === null ? '—' : formatDuration(s.uptime) },
    { label: 'Environment', text: s.environment ?? '—' },
  ];
  if (s.version) rows.push({ label: 'Release', text: s.version });
  if (s.database) rows.push({ label: 'Database', text: `${s.database.name} (${s.database.status})` });
  if (s.backlog) rows.push(...backlogRows(s.backlog));
  rows.push({ label: 'Answered in', text: `${s.ms} ms` });
  return { id: s.name, title: TITLES[s.name], url: s.url, verdict: serviceVerdict(s), rows, note: s.problem };
}

/**
 * A readiness check, fine or not as the service itself judges it (the status document's `details`,
 * lib/health-judge.ts): the page keeps no list of good states. A failing one says since when and why, when the
 * service says.
 */
function checkRow(name, state, judged) {
  const row = { label: name, text: state, tone: judged ? (judged.ok ? 'good' : 'bad') : 'muted', check: true };
  if (!judged || judged.ok) return row;
  const since = judged.since ? `since ${formatClock(judged.since)}` : null;
  // The reason comes from the service's body: a long one is cut, so one check cannot stretch the panel.
  const reason =
    judged.reason && judged.reason.length > MAX_REASON ? `${judged.reason.slice(0, MAX_REASON)}…` : judged.reason;
  const detail = [since, reason].filter(Boolean).join(': ');
  return detail ? { ...row, detail } : row;
}

/** What the device service holds for the backend: readings not yet acknowledged, its spool, and what it dropped. */
function backlogRows({ unacknowledged, spoolBytes, dropped }) {
  // A reading waits for its ack for a moment on every send, so a count above 0 is not by itself a problem.
  const held = unacknowledged === 0 ? 'none' : `${formatCount(unacknowledged, 'reading')} held on the device`;
  const rows = [{ label: 'Unacknowledged', text: held }];
  if (spoolBytes !== null) rows.push({ label: 'Spool', text: formatBytes(spoolBytes) });
  if (dropped) rows.push({ label: 'Dropped', text: `${formatCount(dropped, 'reading')} (spool full)`, tone: 'bad' });
  return rows;
}

function disabledDevicePanel() {
  return {
    id: 'device',
    title: TITLES.device,
    url: null,
    verdict: { tone: 'muted', text: 'Not monitored' },
    rows: [],
    note: 'DEVICE_URL is empty, so the frontend does not ask the device service.',
  };
}
