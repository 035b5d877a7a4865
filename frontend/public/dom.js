// The page's building blocks: status icons, elements and badges, made with DOM calls only (no HTML strings).

export const SVG = 'http://www.w3.org/2000/svg';

/** Glyphs drawn on a filled circle, so the state reads without colour and without relying on installed fonts. */
const GLYPHS = {
  good: 'M4.5 8.5l2.3 2.3L11.5 6',
  bad: 'M5.5 5.5l5 5M10.5 5.5l-5 5',
  warn: 'M8 4.2v4.6M8 11.3v.3',
  muted: 'M5 8h6',
};

export function icon(tone) {
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
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value !== undefined && value !== null && value !== false)
      node.setAttribute(name, value === true ? '' : String(value));
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

export const badge = (tag, verdict, className = 'badge') =>
  el(
    tag,
    { class: className, 'data-tone': verdict.tone },
    icon(verdict.tone),
    el('span', { class: 'badge-text' }, verdict.text),
  );
