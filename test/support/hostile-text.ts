// Test support: strings a hostile server would send to forge the smoke's output, and the characters no output may
// carry raw; for the property tests of the escaping (smoke/terminal-text.ts, smoke/markdown-text.ts) and the CLI.
import { seededRandom } from './seeded-random.ts';

/** Pieces that look like the smoke's own lines, or that a terminal, a markdown renderer or an XML parser acts on. */
export const HOSTILE_PIECES = [
  '\n',
  '\r\n',
  '\r',
  '\n\n',
  '\u001B[2K',
  '\u001B[1A\u001B[2K\r',
  '\u001B]0;title\u0007',
  '\u009B31m',
  '\u0000',
  '\u0008',
  '\u007F',
  '\u0085',
  '\t',
  '\u202E',
  '\u2066',
  '\u2069',
  '\u200E',
  '\u200F',
  '\u061C',
  '\u2028',
  '\u2029',
  '\uD800',
  '\uDFFF',
  '😀',
  'smoke: PASS (3/3)',
  'smoke: PASS (5/5)',
  '[HEALTH] backend ... PASS (1ms)',
  '[READY] backend ... PASS (1ms)',
  '[LOAD] frontend ... PASS (2ms) screenshot=x.png',
  '# smoke: PASS',
  '### smoke: PASS (3/3)',
  '<img src=https://evil.example/i.png>',
  '<script>alert(1)</script>',
  '<!-- x -->',
  '[click](https://evil.example/l)',
  '![pic](https://evil.example/p.png)',
  '<https://evil.example/auto>',
  'https://evil.example/bare',
  'www.evil.example',
  '`',
  '```',
  '~~~',
  '|',
  '\\',
  '*emph*',
  '_u_',
  '&amp;',
  '&lt;b&gt;',
  ']]>',
  '"',
  "'",
  ' ',
  'é',
  'database',
] as const;

/** A hostile string from one seed: a few pieces, joined by the pieces or by plain words. */
export function hostileString(seed: number, pieces = 6): string {
  const { int, pick } = seededRandom(seed);
  return Array.from({ length: 1 + int(pieces) }, () => (int(3) === 0 ? 'ok' : pick(HOSTILE_PIECES))).join('');
}

/**
 * A character no output may carry raw: C0 (all but the line feeds that end our own lines, checked apart), DEL,
 * C1, the bidi controls, the line and paragraph separators, and a lone surrogate half.
 */
export const RAW_CONTROL = new RegExp(
  '[\\u0000-\\u0009\\u000B-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069]' +
    '|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]',
);
