// The strength rule for operator and read tokens: an estimate of at least 128 bits, worded as the rule a token
// breaks, never the token itself.

/** 128 bits: what `openssl rand -hex 16` gives; out of reach of any guessing, however fast. */
export const MIN_TOKEN_BITS = 128;
/** A token of fewer distinct characters is a pattern, whatever its length. */
export const MIN_DISTINCT_CHARACTERS = 8;

const HOW = 'make one with `openssl rand -hex 32`';

/**
 * Bits a token could carry: its length times log2 of the alphabet its characters come from (hex 16; else 26 for
 * lowercase, 26 for uppercase, 10 for digits and 32 for anything else, each when present). An upper estimate:
 * a word or a pattern carries less, which is why the rules on repeated and distinct characters come first.
 */
export function tokenBits(token: string): number {
  if (/^[0-9a-f]+$/.test(token) || /^[0-9A-F]+$/.test(token)) return token.length * 4;
  let alphabet = 0;
  if (/[a-z]/.test(token)) alphabet += 26;
  if (/[A-Z]/.test(token)) alphabet += 26;
  if (/[0-9]/.test(token)) alphabet += 10;
  if (/[^a-zA-Z0-9]/.test(token)) alphabet += 32;
  return Math.floor(token.length * Math.log2(alphabet));
}

/** The rule a token breaks, worded to follow "the token", or undefined when it is strong enough. */
export function tokenStrengthProblem(token: string): string | undefined {
  const distinct = new Set(token).size;
  if (distinct <= 1) return `is one repeated character (${HOW})`;
  if (distinct < MIN_DISTINCT_CHARACTERS)
    return `has too few distinct characters (${distinct}, at least ${MIN_DISTINCT_CHARACTERS}; ${HOW})`;
  const bits = tokenBits(token);
  if (bits < MIN_TOKEN_BITS)
    return `is too short: about ${bits} bits, at least ${MIN_TOKEN_BITS} (32 hex characters; ${HOW})`;
  return undefined;
}
