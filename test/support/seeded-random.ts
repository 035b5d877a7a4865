// A small seeded generator (mulberry32) for property tests: a failure names its seed and repeats.

/** Whole numbers from 0 to n - 1, and picks from a list, all from one seed. */
export function seededRandom(seed: number) {
  let a = seed;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { int, pick };
}
