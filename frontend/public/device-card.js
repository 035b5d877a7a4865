// Draws one device's card in the Readings panel: its state, newest value and age, and the chart of its numbers.
import { CHART } from './readings-view.js';
import { badge, el, SVG } from './dom.js';

function svgNode(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

/**
 * A polyline in a stretched box (no chart library). The SVG carries the whole story as its text alternative;
 * the visible labels around it repeat that, so they are hidden from screen readers.
 */
function renderChart(chart) {
  const svg = svgNode('svg', {
    class: 'chart-plot',
    viewBox: `0 0 ${CHART.width} ${CHART.height}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': chart.label,
  });
  svg.append(
    svgNode('path', { class: 'chart-grid', d: chart.grid }),
    svgNode('path', { class: 'chart-line', d: chart.line }),
    svgNode('path', { class: 'chart-newest', d: chart.newest }),
  );
  return el(
    'figure',
    { class: 'chart' },
    el(
      'div',
      { class: 'chart-y', 'aria-hidden': 'true' },
      el('span', { class: 'chart-max' }, `max ${chart.max}`),
      el('span', { class: 'chart-min' }, `min ${chart.min}`),
    ),
    svg,
    el(
      'div',
      { class: 'chart-x', 'aria-hidden': 'true', 'data-single': chart.from === null },
      chart.from === null ? null : el('span', { class: 'chart-from' }, chart.from),
      el('span', { class: 'chart-to' }, chart.to),
    ),
  );
}

/** `id` is the card's own (device ids are free text, so they never become element ids). */
export function renderDeviceCard(card, id) {
  const titleId = `${id}-title`;
  const latest = card.latest;
  const meta = [latest && `#${latest.seq} read at ${latest.clock}`, card.stored].filter(Boolean).join(' · ');
  return el(
    'article',
    { class: 'device-card', 'data-device': card.deviceId, 'data-tone': card.verdict.tone, 'aria-labelledby': titleId },
    el('div', { class: 'card-head' }, el('h3', { id: titleId }, card.deviceId), badge('p', card.verdict)),
    latest
      ? el(
          'p',
          { class: 'latest' },
          el('span', { class: 'reading-value' }, latest.value),
          el('time', { class: 'age', datetime: latest.iso, title: `read at ${latest.clock}` }, latest.age),
        )
      : null,
    card.chart ? renderChart(card.chart) : null,
    card.note ? el('p', { class: 'note', 'data-tone': card.note.tone }, card.note.text) : null,
    meta ? el('p', { class: 'card-meta' }, meta) : null,
  );
}
