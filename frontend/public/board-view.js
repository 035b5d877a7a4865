// Turns a /status.json document into what the board shows (words, tones, rows); pure, so it is tested in Node.

/** How often the page asks for /status.json. */
export const REFRESH_MS = 2000;

/** Check states that mean "this dependency is fine"; any other state is shown as a problem. */
const GOOD_CHECK_STATES = new Set(['connected', 'emulator', 'open', 'ok', 'ready']);

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
    };
  }
  const services = [doc.services.backend, doc.services.device].filter(Boolean);
  const panels = [describeService(doc.services.backend)];
  panels.push(doc.services.device ? describeService(doc.services.device) : disabledDevicePanel());
  panels.push(describeReading(doc));
  const refreshed = { iso: doc.checkedAt, text: formatClock(doc.checkedAt) };
  const summary = fetchError
    ? { tone: 'bad', text: `Status unavailable: ${fetchError}. Showing the data from ${refreshed.text}.` }
    : summarize(services);
  return { summary, refreshed, stale: Boolean(fetchError), panels };
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
      ? checks.map(([name, state]) => ({
          label: name,
          text: state,
          tone: GOOD_CHECK_STATES.has(state) ? 'good' : 'bad',
          check: true,
        }))
      : [{ label: 'Checks', text: 'unknown', tone: 'muted', check: true }]),
    { label: 'Uptime', text: s.uptime === null ? '—' : formatDuration(s.uptime) },
    { label: 'Environment', text: s.environment ?? '—' },
  ];
  if (s.database) rows.push({ label: 'Database', text: `${s.database.name} (${s.database.status})` });
  rows.push({ label: 'Answered in', text: `${s.ms} ms` });
  return { id: s.name, title: TITLES[s.name], url: s.url, verdict: serviceVerdict(s), rows, note: s.problem };
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

function describeReading(doc) {
  const base = { id: 'reading', title: 'Latest reading', url: null };
  const { readings } = doc;
  if (!readings.available)
    return { ...base, verdict: { tone: 'warn', text: 'Unavailable' }, rows: [], note: readings.problem };
  const latest = readings.latest;
  if (!latest) {
    const known = readings.devices.length;
    return {
      ...base,
      verdict: { tone: 'muted', text: 'No readings yet' },
      rows: [{ label: 'Devices known', text: String(known) }],
      note: null,
    };
  }
  const age = Date.parse(doc.checkedAt) - Date.parse(latest.timestamp);
  return {
    ...base,
    verdict: latest.connected
      ? { tone: 'good', text: 'Device connected' }
      : { tone: 'warn', text: 'Device disconnected' },
    rows: [
      { label: 'Value', text: latest.value, value: true },
      { label: 'Device', text: latest.deviceId },
      { label: 'Sequence', text: `#${latest.seq}` },
      { label: 'Read at', text: `${formatClock(latest.timestamp)} (${formatAge(age)})`, iso: latest.timestamp },
    ],
    note: null,
  };
}

const pad = (n) => String(n).padStart(2, '0');

/** Local wall-clock time, HH:MM:SS. */
export function formatClock(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** 42 s · 4 min 12 s · 3 h 05 min · 2 d 4 h */
export function formatDuration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${pad(Math.floor((s % 3600) / 60))} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

export function formatAge(ms) {
  return ms < 1500 ? 'just now' : `${formatDuration(ms / 1000)} ago`;
}
