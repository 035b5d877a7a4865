// Text a server chose, made inert in markdown (smoke-report.md, the GitHub step summary): always inside code, where
// neither HTML nor a link nor emphasis is read, with its control characters escaped (terminal-text.ts) first.
import { terminalText } from './terminal-text.ts';

/**
 * An inline code span: its fence is longer than any run of backticks inside. Where CommonMark would take a backtick
 * at either end for part of the fence, or strip a space at both ends, one space of padding (which it strips) goes
 * on each side. In a table cell, `|` is written `\|`, which GFM reads as a pipe inside the cell, even in code.
 */
export function markdownCode(text: string, { cell = false } = {}): string {
  const safe = terminalText(text);
  const inner = cell ? safe.replace(/\|/g, '\\|') : safe;
  const fence = '`'.repeat(_longestBacktickRun(inner) + 1);
  const pad = inner === '' || /^`|`$/.test(inner) || /^ .* $/s.test(inner) ? ' ' : '';
  return `${fence}${pad}${inner}${pad}${fence}`;
}

/**
 * A fenced code block no text can close early: its fence is longer than any run of backticks in it. Its line breaks
 * stay (a log is many lines); every other control character is escaped, line by line.
 */
export function markdownBlock(text: string): string {
  const safe = text.split('\n').map(terminalText).join('\n');
  const fence = '`'.repeat(Math.max(2, _longestBacktickRun(safe)) + 1);
  return `${fence}\n${safe}\n${fence}\n`;
}

const _longestBacktickRun = (text: string) => Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
