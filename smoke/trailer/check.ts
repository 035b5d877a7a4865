// Checks a commit message carries exactly one well-formed smoke trailer in git's trailer block (the `check`
// subcommand and commit-msg hook).
import {
  COMMENT,
  isBlank,
  parseMessage,
  startsWithSpace,
  separatorAt,
  type MessageLine,
  type ParsedMessage,
} from './block.ts';
import { MAX_DETAIL, parseTrailer, passProblem } from './line.ts';

// Lines that claim to be a smoke trailer; a subject such as "smoke: fix the probe" is not one.
const TRAILER_LIKE = /^\s*smoke\s*:\s*(pass|fail|skipped)\b/i;
const WHERE = "git reads trailers only from the message's last paragraph, a block of `Token: value` lines";

/**
 * Undefined when the message is acceptable; otherwise a one-line reason. Acceptable: exactly one smoke
 * trailer, anywhere in the trailer block git finds at the end of the message (so `git commit -s` and
 * `Co-authored-by:` lines may follow it), and no line elsewhere that looks like one.
 */
export function checkMessage(text: string): string | undefined {
  const message = parseMessage(text);
  const inBlock = message.trailers.filter((trailer) => trailer.token.toLowerCase() === 'smoke');
  const blockStarts = new Set(inBlock.map((trailer) => trailer.number));
  // The subject is never a trailer to git; a subject such as "smoke: fail fast on ..." only counts when nothing
  // else does.
  const subject = inBlock.length > 0 ? message.lines[0]?.number : undefined;
  const stray = message.lines
    .filter((line) => TRAILER_LIKE.test(line.text) && !blockStarts.has(line.number) && line.number !== subject)
    .map((line) => line.number);
  const claims = [...new Set([...inBlock.map((trailer) => trailer.number), ...stray])].sort((a, b) => a - b);
  if (claims.length === 0) {
    return (
      'no smoke trailer: ' +
      'end the message with a line `smoke: <PASS|FAIL|SKIPPED> — <detail>` (from npx tsx smoke/trailer.ts)'
    );
  }
  if (claims.length > 1)
    return (
      `${claims.length} smoke trailers (lines ${claims.join(', ')}): ` +
      `keep exactly one, in the trailer block at the end`
    );
  const [trailer] = inBlock;
  return trailer ? checkLine(trailer.text) : misplaced(message, claims[0]!);
}

/** Why a line that looks like the smoke trailer is not one to git. */
function misplaced({ lines, subjectEnd, block }: ParsedMessage, line: number): string {
  if (line === lines[0]?.number) return 'the smoke trailer must follow a subject line, in the message body';
  if (line <= subjectEnd)
    return `the smoke trailer on line ${line} is part of the subject's paragraph: leave a blank line after the subject`;
  const lastParagraph = lastParagraphStart(lines);
  if (block || line < lastParagraph)
    return `the smoke trailer on line ${line} is not in the trailer block at the end of the message (${WHERE})`;
  const prose = lines.find(
    (l) =>
      l.number >= lastParagraph && !l.text.startsWith(COMMENT) && !startsWithSpace(l.text) && separatorAt(l.text) < 1,
  );
  const why = prose
    ? `line ${prose.number} "${prose.text.slice(0, 60)}" in its paragraph is not a \`Token: value\` line`
    : 'its paragraph is not a trailer block';
  return (
    `the smoke trailer on line ${line} is not a trailer to git: ${why} ` +
    `(leave a blank line between the text and the trailers)`
  );
}

/** Number of the first line of the message's last paragraph. */
function lastParagraphStart(lines: MessageLine[]): number {
  let index = lines.length - 1;
  while (index > 0 && !isBlank(lines[index - 1]!.text)) index--;
  return lines[index]?.number ?? 0;
}

function checkLine(line: string): string | undefined {
  const parsed = parseTrailer(line);
  if (parsed) {
    if (parsed.detail.length > MAX_DETAIL)
      return `the smoke trailer's detail is ${parsed.detail.length} characters long: at most ${MAX_DETAIL}`;
    const wrong = parsed.verdict === 'PASS' ? passProblem(parsed) : undefined;
    return wrong && `PASS needs the compose target and the tree it smoked: ${wrong} (got "${parsed.detail}")`;
  }
  if (!/^smoke: \S/.test(line))
    return `malformed smoke trailer "${line}": it starts with exactly "smoke: " (lowercase, one space)`;
  const verdict = /^smoke: (\S+)/.exec(line)?.[1] ?? '';
  if (!['PASS', 'FAIL', 'SKIPPED'].includes(verdict))
    return `malformed smoke trailer "${line}": the verdict is PASS, FAIL or SKIPPED (got "${verdict}")`;
  const rest = line.slice(`smoke: ${verdict}`.length);
  if (/^\s*(-{1,3}|\u2013|\u2212)\s/.test(rest))
    return `malformed smoke trailer "${line}": use the em dash — (U+2014) after the verdict, not a hyphen or en dash`;
  if (/^ \u2014\s*$/.test(rest)) return `malformed smoke trailer "${line}": the detail after the em dash is empty`;
  return (
    `malformed smoke trailer "${line}": expected "smoke: ${verdict} — <detail>" ` +
    `(one space, em dash U+2014, one space, detail)`
  );
}
