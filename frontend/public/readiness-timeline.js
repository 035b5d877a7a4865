// Each service's readiness over the last hour, kept in the page's memory from its polls of /status.json, and the
// strip the board draws from it; pure, so it is tested in Node.
import { formatClock, formatCount, formatDuration } from './format.js';

export const TIMELINE_WINDOW_MS = 60 * 60 * 1000;
/** Changes kept per service: a state that flips on every 2 s poll fills an hour with 1,800; the strip needs fewer. */
const CHANGES_MAX = 600;

const TONES = { ready: 'good', not_ready: 'warn', shutting_down: 'warn', failing: 'bad', unreachable: 'bad' };
const WORDS = {
  ready: 'ready',
  not_ready: 'not ready',
  shutting_down: 'shutting down',
  failing: 'failing',
  unreachable: 'unreachable',
};

/** The state a service was seen in: its readiness, or why there was none (liveness failing or unreachable). */
function stateOf(service) {
  if (service.liveness !== 'ok') return service.liveness === 'failing' ? 'failing' : 'unreachable';
  return service.readiness;
}

/** Per service, the state first seen and every change since, each with its time (ms), within the window. */
export function createReadinessHistory({ windowMs = TIMELINE_WINDOW_MS } = {}) {
  const changes = new Map();
  return {
    /** Notes each service's state in a /status.json document (at its `checkedAt`). */
    record(doc) {
      const at = Date.parse(doc.checkedAt);
      if (Number.isNaN(at)) return;
      for (const service of [doc.services.backend, doc.services.device]) {
        if (!service) continue;
        const list = changes.get(service.name) ?? [];
        const state = stateOf(service);
        if (list.at(-1)?.state !== state) list.push({ at, state });
        // Older than the window: dropped, except the last of them, which still says how the window began.
        while (list.length > 1 && (list[1].at <= at - windowMs || list.length > CHANGES_MAX)) list.shift();
        changes.set(service.name, list);
      }
    },
    /** The changes kept for `name`, oldest first. */
    of: (name) => changes.get(name) ?? [],
  };
}

/** The shortest span the strip covers: the first seconds after the page opens are not one bar squeezed into an hour. */
const SPAN_MIN_MS = 60_000;

/**
 * The strip for one service at `now`: segments placed as percentages of the span shown (the last hour, or since the
 * first poll when that is more recent), the changes counted, and words for screen readers and the line under the
 * strip. Null before the first poll.
 */
export function describeTimeline(entries, now, windowMs = TIMELINE_WINDOW_MS) {
  if (entries.length === 0) return null;
  const span = Math.min(windowMs, Math.max(SPAN_MIN_MS, now - entries[0].at));
  const start = now - span;
  const segments = entries.map((entry, i) => {
    const from = Math.max(entry.at, start);
    const to = i + 1 < entries.length ? entries[i + 1].at : now;
    return {
      left: round(((from - start) / span) * 100),
      width: round((Math.max(0, to - from) / span) * 100),
      tone: TONES[entry.state] ?? 'muted',
      state: WORDS[entry.state] ?? entry.state,
      from: formatClock(new Date(from).toISOString()),
    };
  });
  // Changes within the window; the first entry is where the watch began, not a change, unless the hour cut it.
  const windowStart = now - windowMs;
  const partial = entries[0].at > windowStart;
  const changes = entries.filter((entry) => entry.at > windowStart).length - (partial ? 1 : 0);
  const watched = formatDuration((now - Math.max(entries[0].at, windowStart)) / 1000);
  const current = segments.at(-1);
  const since = `${current.state} since ${current.from}`;
  // Under a second watched is no history at all: "throughout (watched 0 s)" would claim one.
  const justSeen = changes === 0 && now - entries[0].at < 1000;
  const text = justSeen
    ? `${current.state} when first seen, just now; this strip fills in as the page keeps watching`
    : changes === 0
      ? `${current.state} throughout (watched ${watched})`
      : `${formatCount(changes, 'change')} in the last ${partial ? watched : 'hour'}; ${since}`;
  const label = `Readiness over the last hour: ${segments.map((s) => `${s.state} from ${s.from}`).join(', ')}`;
  return { segments, changes, text, label };
}

const round = (n) => Math.round(n * 100) / 100;
