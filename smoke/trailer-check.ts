// Checks a commit message ends with exactly one well-formed smoke trailer (the `check` subcommand and commit-msg hook).
import { PASS_DETAIL, TRAILER_LINE } from './trailer-format.ts';

// Lines that claim to be a smoke trailer; a subject such as "smoke: fix the probe" is not one.
const TRAILER_LIKE = /^\s*smoke\s*:\s*(pass|fail|skipped)\b/i;
const SMOKE_KEY = /^\s*smoke\s*:/i;
// `git commit --verbose` appends the diff below this line; git drops it, and so do we.
const SCISSORS = /^# -+ >8 -+$/;

/** The message as git will store it: no comment lines, nothing below the scissors, no trailing blank lines. */
export function cleanMessage(text: string): string[] {
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (SCISSORS.test(line)) break;
    if (!line.startsWith('#')) lines.push(line.trimEnd());
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Undefined when the message is acceptable; otherwise a one-line reason. */
export function checkMessage(text: string): string | undefined {
  const lines = cleanMessage(text);
  const last = lines[lines.length - 1];
  const claims = lines.flatMap((line, index) => (TRAILER_LIKE.test(line) || (index === lines.length - 1 && SMOKE_KEY.test(line)) ? [index + 1] : []));
  if (claims.length === 0 || last === undefined) {
    return 'no smoke trailer: end the message with a line `smoke: <PASS|FAIL|SKIPPED> — <detail>` (from npx tsx smoke/trailer.ts)';
  }
  if (claims.length > 1) return `${claims.length} smoke trailers (lines ${claims.join(', ')}): keep exactly one, as the last line`;
  if (claims[0] !== lines.length) return `the smoke trailer on line ${claims[0]} must be the message's last line`;
  if (lines.length === 1) return 'the smoke trailer must follow a subject line, in the message body';
  return checkLine(last);
}

function checkLine(line: string): string | undefined {
  const match = TRAILER_LINE.exec(line);
  if (match) {
    if (match[1] === 'PASS' && !isComposePass(match[2]!)) {
      return `PASS needs the compose target: the detail must read "<n>/<n> probes against docker compose" (got "${match[2]}")`;
    }
    return undefined;
  }
  if (!/^smoke: \S/.test(line)) return `malformed smoke trailer "${line}": it starts with exactly "smoke: " (lowercase, one space)`;
  const verdict = /^smoke: (\S+)/.exec(line)?.[1] ?? '';
  if (!['PASS', 'FAIL', 'SKIPPED'].includes(verdict)) return `malformed smoke trailer "${line}": the verdict is PASS, FAIL or SKIPPED (got "${verdict}")`;
  const rest = line.slice(`smoke: ${verdict}`.length);
  if (/^\s*(-{1,3}|\u2013|\u2212)\s/.test(rest)) return `malformed smoke trailer "${line}": use the em dash — (U+2014) after the verdict, not a hyphen or en dash`;
  if (/^ \u2014\s*$/.test(rest)) return `malformed smoke trailer "${line}": the detail after the em dash is empty`;
  return `malformed smoke trailer "${line}": expected "smoke: ${verdict} — <detail>" (one space, em dash U+2014, one space, detail)`;
}

function isComposePass(detail: string): boolean {
  const match = PASS_DETAIL.exec(detail);
  return match !== null && match[1] === match[2] && Number(match[1]) > 0;
}
