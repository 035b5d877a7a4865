// The modules mutation testing covers (test/mutation/run.ts), each with the test files that pin its behaviour.

export interface MutationModule {
  module: string;
  /** Run one after another, each as its own process; a mutant is killed when one of them fails. */
  tests: string[];
  /** Survivors no test can tell from the module, each with why; docs/mutation.md prints the reason beside it. */
  equivalent?: Equivalent[];
}

/** Found by its mutator and the text of the line it is on, so the reason follows the line when lines move. */
export interface Equivalent {
  mutator: string;
  line: string;
  /** When one line holds several mutants of the mutator: the text the mutant puts in, exactly. */
  replacement?: string;
  why: string;
}

export const MODULES: MutationModule[] = [
  { module: 'device/serial/line-splitter.ts', tests: ['device/serial/line-splitter.test.ts'] },
  { module: 'lib/device-protocol.ts', tests: ['lib/device-protocol.test.ts'] },
  { module: 'backend/writer/ack-marks.ts', tests: ['backend/writer/ack-marks.test.ts'] },
  { module: 'lib/seq-ranges.ts', tests: ['lib/seq-ranges.test.ts'] },
  { module: 'device/spool/loss-ledger.ts', tests: ['device/spool/loss-ledger.test.ts'] },
  { module: 'smoke/trailer/line.ts', tests: ['smoke/trailer/line.test.ts', 'smoke/trailer/check.test.ts'] },
  { module: 'lib/health-judge.ts', tests: ['lib/health-judge.test.ts'] },
  // Who gets in: the token-strength rule, the operator's sessions and the limit on guessing (docs/access.md).
  { module: 'lib/token-strength.ts', tests: ['lib/token-strength.test.ts'] },
  { module: 'frontend/operator-session.ts', tests: ['frontend/operator-session.test.ts'] },
  { module: 'frontend/sign-in-limit.ts', tests: ['frontend/sign-in-limit.test.ts'] },
  {
    module: 'frontend/operator-access.ts',
    tests: ['frontend/operator-access.test.ts'],
    equivalent: [
      {
        mutator: 'ArrowFunction',
        line: '() => false,',
        why: 'a body that could not be read answers undefined instead of false: as falsy, the same 400',
      },
      {
        mutator: 'OptionalChaining',
        line: "socketOf(c)?.remoteAddress ?? ''",
        why: 'only a request over TLS gets this far, and it has a socket: the chaining is never needed',
      },
      {
        mutator: 'StringLiteral',
        line: "socketOf(c)?.remoteAddress ?? ''",
        why: 'only a request over TLS gets this far, and its socket has an address: the fallback is never used',
      },
      {
        mutator: 'StringLiteral',
        line: "typeof form.token === 'string' ? form.token.trim() : ''",
        why: 'a token field that is no text becomes another text that is no token: the same 401',
      },
    ],
  },
  // Who reads device data: the backend's read gate (docs/access.md#read-access).
  {
    module: 'backend/http/read-gate.ts',
    tests: ['backend/http/read-gate.test.ts'],
    equivalent: [
      {
        mutator: 'StringLiteral',
        line: "c.req.header('Authorization') ?? ''",
        why: 'any text that is not `Bearer …` in place of a missing header fails the pattern all the same',
      },
      {
        mutator: 'StringLiteral',
        line: "digest(match?.[1] ?? '')",
        why: 'with no match the request is refused before the digest counts (`match !== null && granted`)',
      },
      {
        mutator: 'StringLiteral',
        line: ".update(value, 'utf8')",
        why: 'Node reads a string in UTF-8 when the encoding is empty too, so the digests are the same',
      },
    ],
  },
  // What `verify` believes of a trailer: each claim held against the evidence noted on the commit's tree.
  {
    module: 'smoke/trailer/verify.ts',
    tests: ['smoke/trailer/verify-decisions.test.ts'],
    equivalent: [
      {
        mutator: 'OptionalChaining',
        line: 'const committed = (text: string) =>',
        why: 'git writes no commit object without its committer line (fsck: missingCommitter), so one is always found',
      },
      {
        mutator: 'Regex',
        line: 'const committed = (text: string) =>',
        replacement: String.raw`/^committer .* (\d+) [+-]\d{4}/m`,
        why: 'without `$`: the greedy `.*` still leaves only the last number and zone of the line to match',
      },
      {
        mutator: 'Regex',
        line: 'const parent = /^parent',
        why: 'in the header only `parent` lines start so or end in a name, so either anchor alone finds the same line',
      },
    ],
  },
  {
    module: 'smoke/trailer/claims.ts',
    tests: ['smoke/trailer/claims.test.ts'],
    equivalent: [
      {
        mutator: 'Regex',
        line: 'const ISO_UTC =',
        replacement: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z/`,
        why: 'without `$`: Date.parse refuses any text after the `Z`, so the time is refused all the same',
      },
      {
        mutator: 'ConditionalExpression',
        line: 'if (composeConfig === null ||',
        why: 'without the null check: the pattern tests null as the text "null", which it refuses all the same',
      },
      {
        mutator: 'ConditionalExpression',
        line: 'if (parentCommitted !== undefined &&',
        why: 'without the check: `undefined - skew` is NaN, and no time is less than NaN',
      },
    ],
  },
];
