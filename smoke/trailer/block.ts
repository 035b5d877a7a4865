// Finds a commit message's trailer block the way git does (trailer.c, as `git interpret-trailers` reads it).
//
// Git's rules: the message ends at the scissors line, and trailing blank and comment lines do not count; the
// first paragraph is the subject and never holds trailers; the block is the last paragraph, and only when its
// lines are all `Token: value` trailers (a line starting with whitespace continues the one above), or when it
// holds a git-generated trailer (`Signed-off-by: `, `(cherry picked from commit `) and at least a quarter of
// its lines are trailers. Comment lines inside the block are skipped.

export const COMMENT = '#';
// `git commit --verbose` appends the diff below this line; git drops it before storing the message.
export const SCISSORS = '# ------------------------ >8 ------------------------';
const GIT_GENERATED = ['Signed-off-by: ', '(cherry picked from commit '];

export interface MessageLine {
  /** 1-based line number in the file as given. */
  number: number;
  text: string;
}

export interface GitTrailer {
  /** The token before the separator, as written (`Signed-off-by`). */
  token: string;
  /** The whole trailer as one line: its first line and its continuation lines, unfolded as git does. */
  text: string;
  /** Line number of its first line. */
  number: number;
}

export interface ParsedMessage {
  /** The message lines git reads: nothing below the scissors, no trailing blank or comment lines. */
  lines: MessageLine[];
  /** Number of the subject's last line (0 when the message is empty). */
  subjectEnd: number;
  /** The block's first and last line numbers, when the message has a trailer block. */
  block?: { first: number; last: number };
  trailers: GitTrailer[];
}

// git's whitespace is its own ctype table's: space, tab, CR and LF only. JavaScript's \s and trim() also take
// U+00A0, the BOM, U+2028, \v and \f, and a line of one of those would hide a trailer from git but not from us.
export const isBlank = (text: string) => /^[ \t\r\n]*$/.test(text);
/** A line that starts with git's whitespace continues the trailer above it. */
export const startsWithSpace = (text: string) => /^[ \t\r\n]/.test(text);
export const trimGit = (text: string) => text.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
const isComment = (text: string) => text.startsWith(COMMENT);

/** git's find_separator: a token of letters, digits and hyphens, optional whitespace, then the colon. */
export function separatorAt(text: string): number {
  let spaced = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === ':') return i;
    if (!spaced && /[A-Za-z0-9-]/.test(ch)) continue;
    if (i > 0 && (ch === ' ' || ch === '\t')) {
      spaced = true;
      continue;
    }
    break;
  }
  return -1;
}

export function parseMessage(raw: string): ParsedMessage {
  const all = raw.split('\n').map((text, index) => ({ number: index + 1, text: text.replace(/[ \t\r]+$/, '') }));
  const cut = all.findIndex((line) => line.text === SCISSORS);
  const lines = cut >= 0 ? all.slice(0, cut) : all;
  while (lines.length > 0 && (isBlank(lines.at(-1)!.text) || isComment(lines.at(-1)!.text))) lines.pop();
  // git commit drops leading blank lines before storing, so the subject is the first line with text.
  const first = lines.findIndex((line) => !isBlank(line.text) && !isComment(line.text));
  if (first < 0) return { lines: [], subjectEnd: 0, trailers: [] };
  let end = first;
  while (end < lines.length && !isBlank(lines[end]!.text)) end++;
  const subjectEnd = lines[end - 1]!.number;
  const start = blockStart(lines, end);
  if (start === undefined) return { lines, subjectEnd, trailers: [] };
  const block = lines.slice(start);
  return {
    lines,
    subjectEnd,
    block: { first: block[0]!.number, last: block.at(-1)!.number },
    trailers: collect(block),
  };
}

/** git's find_trailer_block_start, reading up from the end; the index of the block's first line, if any. */
function blockStart(lines: MessageLine[], afterSubject: number): number | undefined {
  let trailerLines = 0;
  let nonTrailerLines = 0;
  let possibleContinuations = 0;
  let recognised = false;
  for (let i = lines.length - 1; i >= afterSubject; i--) {
    const { text } = lines[i]!;
    if (isComment(text)) {
      nonTrailerLines += possibleContinuations;
      possibleContinuations = 0;
      continue;
    }
    if (isBlank(text)) {
      nonTrailerLines += possibleContinuations;
      if (recognised && trailerLines * 3 >= nonTrailerLines) return i + 1;
      if (trailerLines > 0 && nonTrailerLines === 0) return i + 1;
      return undefined;
    }
    if (GIT_GENERATED.some((prefix) => text.startsWith(prefix))) {
      trailerLines++;
      possibleContinuations = 0;
      recognised = true;
    } else if (separatorAt(text) >= 1 && !startsWithSpace(text)) {
      trailerLines++;
      possibleContinuations = 0;
    } else if (startsWithSpace(text)) {
      possibleContinuations++;
    } else {
      nonTrailerLines += 1 + possibleContinuations;
      possibleContinuations = 0;
    }
  }
  return undefined; // reached the subject without a blank line: the last paragraph is the subject
}

/** The trailers of a block, each with its continuation lines folded in; other lines in the block are not trailers. */
function collect(block: MessageLine[]): GitTrailer[] {
  const trailers: GitTrailer[] = [];
  let last: GitTrailer | undefined;
  for (const { number, text } of block) {
    if (isComment(text)) continue;
    if (startsWithSpace(text) && last) {
      last.text = `${last.text} ${trimGit(text)}`;
      continue;
    }
    const at = GIT_GENERATED.some((prefix) => text.startsWith(prefix)) ? text.indexOf(':') : separatorAt(text);
    if (at >= 1 && !startsWithSpace(text)) {
      last = { token: trimGit(text.slice(0, at)), text, number };
      trailers.push(last);
    } else {
      last = undefined;
    }
  }
  return trailers;
}
