// Percent-decoding that never throws: text with a stray `%` (a password, a path) is kept as it was written.

/** `decodeURIComponent(text)`, or `text` itself when it is not valid percent-encoding. */
export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
