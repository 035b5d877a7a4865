// Finds the number a reading carries, so it can be charted: `temperature_c=21.00`, `21.5`, `21.5 C`, or none.

export interface ReadingNumber {
  /** The name before `=` (`temperature_c`); null for a bare number. */
  name: string | null;
  number: number;
}

const NUMBER = String.raw`[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?`;
// A bare number, optionally with a unit after it (`21.5`, `21.5 C`, `40%`, `-3.2 °C`); not `12:30` or `1.2.3`.
const BARE = new RegExp(String.raw`^(${NUMBER})\s*(?:[%°µ]?[A-Za-z][A-Za-z/]*|%)?$`);
// One `name=number` pair; a unit may follow the number (`level=40%`).
const PAIR = new RegExp(String.raw`^([A-Za-z_][\w.-]*)\s*=\s*(${NUMBER})(?:[%°µ]?[A-Za-z/]*|%)?$`);

/**
 * The first number in the reading: the whole value when it is a bare number, else the first `name=number` among
 * its whitespace-, comma- or semicolon-separated pairs. Null when there is none, or it is not finite.
 */
export function parseReadingNumber(value: string): ReadingNumber | null {
  const trimmed = value.trim();
  const bare = BARE.exec(trimmed);
  if (bare) return finite(null, bare[1]!);
  // Spaces around `=` are allowed, so they are closed up before the value is split into pairs.
  for (const part of trimmed.replace(/\s*=\s*/g, '=').split(/[\s,;]+/)) {
    const pair = PAIR.exec(part);
    if (pair) return finite(pair[1]!, pair[2]!);
  }
  return null;
}

function finite(name: string | null, text: string): ReadingNumber | null {
  const number = Number(text);
  return Number.isFinite(number) ? { name, number } : null;
}
