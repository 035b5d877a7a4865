// Where each session new to a socket starts its ack mark, decided without I/O: at 0 when its first reading is seq 1,
// at what this process last acknowledged for the device when that reaches the reading before the first, else only
// after asking the store whether the reading before the first is settled (the writer asks, reading-writer.ts).

/** A session new to the socket: its mark is `known`, or `first - 1` when `lookup` finds that reading settled. */
export interface SessionStart {
  session: string;
  /** The mark it starts at without a lookup, or when the lookup finds nothing. */
  known: number;
  /** The reading to look up (`first - 1`), or undefined when `known` already reaches it. */
  lookup: number | undefined;
}

/**
 * The starts for `batch`'s sessions that `through` (the socket's marks) does not know yet, in the order they first
 * appear; `last` is what this process last acknowledged for the device.
 */
export function sessionStarts(
  batch: readonly { session: string; seq: number }[],
  through: (session: string) => number | undefined,
  last: { session: string; seq: number } | undefined,
): SessionStart[] {
  const firsts = new Map<string, number>();
  for (const { session, seq } of batch) {
    if (through(session) === undefined) firsts.set(session, Math.min(seq, firsts.get(session) ?? seq));
  }
  return [...firsts].map(([session, first]) => {
    const known = last?.session === session ? last.seq : 0;
    return { session, known, lookup: known >= first - 1 ? undefined : first - 1 };
  });
}
