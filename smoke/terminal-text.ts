// Text a server chose, made safe for one terminal line: every control character, line break and bidi control is
// shown as a visible escape (`\n`, `\x1b`, `\u202e`), so no server can start a line, move the cursor or reorder text.

// C0 (newline, CR and ESC among them), DEL and C1; the bidi controls (marks, embeddings, overrides, isolates) and
// the Unicode line and paragraph separators; and a lone surrogate half, which no encoder writes as itself.
const CONTROLS = '\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069';
const LONE_SURROGATE = '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const UNSAFE = new RegExp(`[${CONTROLS}]|${LONE_SURROGATE}`, 'g');
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with each unsafe character as an escape; everything else, backslashes included, as it was. */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const code = ch.charCodeAt(0);
    const hex = code.toString(16).padStart(code < 0x100 ? 2 : 4, '0');
    return NAMED[ch] ?? (code < 0x100 ? `\\x${hex}` : `\\u${hex}`);
  });
}
