// Keeps the status board current: asks /status.json every REFRESH_MS and redraws; a failed request marks the data
// stale.
import { describeBoard, REFRESH_MS } from './board-view.js';
import { renderDeviceCard } from './device-card.js';
import { renderAttention, renderFleetTable } from './fleet-panel.js';
import { badge, el, icon } from './dom.js';
import { createReadinessHistory, describeTimeline } from './readiness-timeline.js';
import { renderTimeline } from './timeline-strip.js';

// Each service's readiness changes over the last hour, from this page's polls: a flapping database shows at a glance.
const history = createReadinessHistory();

function renderRow(row) {
  const value = row.tone
    ? badge('span', { tone: row.tone, text: row.text })
    : row.iso
      ? el('time', { datetime: row.iso }, row.text)
      : el('span', { class: row.value ? 'reading-value' : undefined }, row.text);
  const className = ['row', row.check && 'check', row.value && 'value'].filter(Boolean).join(' ');
  const detail = row.detail ? el('span', { class: 'check-detail' }, row.detail) : null;
  return el('div', { class: className }, el('dt', null, row.label), el('dd', null, value, detail));
}

function renderPanel(panel) {
  const titleId = `title-${panel.id}`;
  return el(
    'section',
    { class: 'panel', 'data-panel': panel.id, 'data-tone': panel.verdict.tone, 'aria-labelledby': titleId },
    el(
      'div',
      { class: 'panel-head' },
      el('h2', { id: titleId }, panel.title),
      badge('p', panel.verdict, 'badge verdict'),
    ),
    panel.url ? el('p', { class: 'url' }, panel.url) : null,
    panel.rows.length ? el('dl', { class: 'rows' }, ...panel.rows.map(renderRow)) : null,
    panel.id === 'readings'
      ? null
      : renderTimeline(describeTimeline(history.of(panel.id), Date.parse(last?.checkedAt))),
    panel.note ? el('p', { class: 'note' }, panel.note) : null,
    panel.fleet ? el('p', { class: 'fleet-count' }, panel.fleet) : null,
    panel.held ? el('p', { class: 'held' }, panel.held) : null,
    panel.attention ? renderAttention(panel.attention) : null,
    panel.devices?.length
      ? el('div', { class: 'devices' }, ...panel.devices.map((card, i) => renderDeviceCard(card, `device-${i}`)))
      : null,
    panel.others?.length ? renderFleetTable(panel.others) : null,
  );
}

function render(board) {
  const summary = document.getElementById('summary');
  // Rewritten only on change: it is a live region, and screen readers announce every rewrite.
  if (summary.textContent !== board.summary.text || summary.dataset.tone !== board.summary.tone) {
    summary.replaceChildren(icon(board.summary.tone), el('span', null, board.summary.text));
    summary.dataset.tone = board.summary.tone;
  }
  const state = board.summary.tone === 'good' ? 'OK' : board.summary.tone === 'muted' ? '…' : 'Problem';
  document.title = `${state} · System status`;
  const refreshed = document.getElementById('refreshed');
  if (board.refreshed) {
    refreshed.dateTime = board.refreshed.iso;
    refreshed.textContent = board.refreshed.text;
  }
  const release = document.getElementById('release');
  if (board.release && release.textContent !== board.release) release.textContent = board.release;
  const main = document.getElementById('board');
  main.toggleAttribute('data-stale', board.stale);
  if (board.refreshed) main.dataset.checkedAt = board.refreshed.iso;
  if (board.panels.length) main.replaceChildren(...board.panels.map(renderPanel));
}

let last = null;
let timer;
let running = false;

async function refresh() {
  let fetchError = null;
  try {
    const res = await fetch('/status.json', { cache: 'no-store', signal: AbortSignal.timeout(REFRESH_MS * 5) });
    if (!res.ok) throw new Error(`/status.json answered HTTP ${res.status}`);
    last = await res.json();
    history.record(last);
  } catch (error) {
    fetchError =
      error?.name === 'TimeoutError' ? 'the frontend did not answer in time' : 'the frontend cannot be reached';
  }
  render(describeBoard(last, { fetchError }));
}

async function loop() {
  if (running) return;
  running = true;
  clearTimeout(timer);
  timer = undefined;
  try {
    await refresh();
  } finally {
    running = false;
  }
  // A hidden tab stops asking; it catches up as soon as it is shown again.
  if (!document.hidden) timer = setTimeout(loop, REFRESH_MS);
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden && timer === undefined) void loop();
});

void loop();
