// Draws a service's readiness timeline (readiness-timeline.js) as a strip: one coloured bar per state, the last hour
// from left to right, with its changes in words beneath.
import { el, SVG } from './dom.js';

export function renderTimeline(timeline) {
  if (!timeline) return null;
  const svg = document.createElementNS(SVG, 'svg');
  // Attributes, not inline styles: the page's Content-Security-Policy allows no inline style.
  for (const [k, v] of Object.entries({
    viewBox: '0 0 100 4',
    preserveAspectRatio: 'none',
    class: 'timeline-strip',
    role: 'img',
    'aria-label': timeline.label,
  }))
    svg.setAttribute(k, v);
  for (const segment of timeline.segments) {
    const rect = document.createElementNS(SVG, 'rect');
    // At least a pixel or so wide, and inside the strip: a two-second dip in an hour, or a state just entered, shows.
    const width = Math.max(segment.width, 0.6);
    for (const [k, v] of Object.entries({ x: Math.min(segment.left, 100 - width), y: 0, width, height: 4 }))
      rect.setAttribute(k, String(v));
    rect.setAttribute('data-tone', segment.tone);
    const title = document.createElementNS(SVG, 'title');
    title.textContent = `${segment.state} from ${segment.from}`;
    rect.append(title);
    svg.append(rect);
  }
  return el('div', { class: 'timeline' }, svg, el('p', { class: 'timeline-text' }, timeline.text));
}
