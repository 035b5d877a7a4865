// Keeps the status board current: asks /status.json every REFRESH_MS and redraws; a failed request marks the data
// stale.
import { describeBoard, REFRESH_MS } from './board-view.js';

const SVG = 'http://www.w3.org/2000/svg';

/** Glyphs drawn on a filled circle, so the state reads without colour and without relying on installed fonts. */
const GLYPHS = {
  good: 'M4.5 8.5l2.3 2.3L11.5 6',
  bad: 'M5.5 5.5l5 5M10.5 5.5l-5 5',
  warn: 'M8 4.2v4.6M8 11.3v.3',
  muted: 'M5 8h6',
};

function icon(tone) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('class', 'icon');
  svg.setAttribute('aria-hidden', 'true');
  const circle = document.createElementNS(SVG, 'circle');
  for (const [k, v] of Object.entries({ cx: 8, cy: 8, r: 8, fill: 'currentColor' })) circle.setAttribute(k, String(v));
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', GLYPHS[tone] ?? GLYPHS.muted);
  path.setAttribute('class', 'glyph');
  svg.append(circle, path);
  return svg;
}

/** Builds an element; text is always inserted as text, never as HTML (readings come from a serial device). */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value !== undefined && value !== null && value !== false)
      node.setAttribute(name, value === true ? '' : String(value));
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

const badge = (tag, verdict, className = 'badge') =>
  el(
    tag,
    { class: className, 'data-tone': verdict.tone },
    icon(verdict.tone),
    el('span', { class: 'badge-text' }, verdict.text),
  );

function renderRow(row) {
  const value = row.tone
    ? badge('span', { tone: row.tone, text: row.text })
    : row.iso
      ? el('time', { datetime: row.iso }, row.text)
      : el('span', { class: row.value ? 'reading-value' : undefined }, row.text);
  const className = ['row', row.check && 'check', row.value && 'value'].filter(Boolean).join(' ');
  return el('div', { class: className }, el('dt', null, row.label), el('dd', null, value));
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
    panel.note ? el('p', { class: 'note' }, panel.note) : null,
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
