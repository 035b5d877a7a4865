// Runs inside the page as a script (page-audit.ts reads it as text, so no compiler touches it); its value is the
// list of accessibility problems found.
(function auditInPage() {
  const problems = [];
  const describe = (el) =>
    `<${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}` +
    `${el.className ? ` class="${el.getAttribute('class')}"` : ''}>`;
  const nameOf = (el) => {
    const label = el.getAttribute('aria-label')?.trim();
    if (label) return label;
    const ids = el.getAttribute('aria-labelledby')?.split(/\s+/) ?? [];
    return ids
      .map((id) => document.getElementById(id)?.textContent?.trim() ?? '')
      .join(' ')
      .trim();
  };

  for (const svg of document.querySelectorAll('svg')) {
    if (svg.closest('[aria-hidden="true"]')) continue;
    if (svg.getAttribute('role') !== 'img' || !nameOf(svg))
      problems.push(`${describe(svg)}: a graphic, not hidden and not named`);
  }
  for (const region of document.querySelectorAll('section, article, main')) {
    if (!nameOf(region)) problems.push(`${describe(region)}: no accessible name`);
  }
  let level = 0;
  for (const heading of document.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
    const next = Number(heading.tagName[1]);
    if (next > level + 1) problems.push(`${describe(heading)} "${heading.textContent}": skips from h${level}`);
    level = next;
  }
  const seen = new Set();
  for (const el of document.querySelectorAll('[id]')) {
    if (seen.has(el.id)) problems.push(`id "${el.id}" is used twice`);
    seen.add(el.id);
  }
  for (const toned of document.querySelectorAll('.badge[data-tone]')) {
    if (!toned.textContent?.trim()) problems.push(`${describe(toned)}: a state shown by colour alone`);
  }

  // Contrast: the text's colour against the first opaque background behind it (translucent ones blended in).
  const parse = (value) => {
    const srgb = /color\(srgb ([\d.e-]+) ([\d.e-]+) ([\d.e-]+)(?: \/ ([\d.e-]+))?\)/.exec(value);
    if (srgb) return [Number(srgb[1]) * 255, Number(srgb[2]) * 255, Number(srgb[3]) * 255, Number(srgb[4] ?? 1)];
    const rgb = /rgba?\(([\d.]+),? ([\d.]+),? ([\d.]+)(?:[,/] ?([\d.]+))?\)/.exec(value);
    if (rgb) return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3]), Number(rgb[4] ?? 1)];
    return [0, 0, 0, 0];
  };
  const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3])).concat(1);
  const backgroundOf = (el) => {
    if (!el) return [255, 255, 255, 1];
    const own = parse(getComputedStyle(el).backgroundColor);
    if (own[3] === 1) return own;
    const behind = backgroundOf(el.parentElement);
    return own[3] === 0 ? behind : over(own, behind);
  };
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const checked = new Set();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || checked.has(el) || !node.textContent?.trim()) continue;
    checked.add(el);
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || el.getClientRects().length === 0) continue;
    const bg = backgroundOf(el);
    const fg = over(parse(style.color), bg);
    const [light, dark] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
    const ratio = (light + 0.05) / (dark + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) {
      problems.push(`${describe(el)} "${node.textContent.trim().slice(0, 40)}": contrast ${ratio.toFixed(2)}:1`);
    }
  }
  return problems;
})();
