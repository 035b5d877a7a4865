// A module's mutation score from StrykerJS's results: mutants killed (a test failed) or timed out (a test hung),
// out of those that ran; a mutant that does not compile or run says nothing about the tests and is left out.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Stryker } from '@stryker-mutator/core';
import { projectRoot } from '../../tools/project-root.ts';

type MutantResult = Awaited<ReturnType<Stryker['runMutationTest']>>[number];

export interface Score {
  valid: number;
  killed: number;
  timedOut: number;
  survived: number;
  percent: number;
  /** One per survivor (no coverage counts as survived). */
  survivors: Survivor[];
}

export interface Survivor {
  /** `device/x.ts:12:5 ConditionalExpression → false` */
  text: string;
  mutator: string;
  replacement: string;
  /** The source line the mutant is on. */
  line: string;
}

export function scoreOf(results: readonly MutantResult[]): Score {
  const count = (...statuses: string[]) => results.filter((r) => statuses.includes(r.status)).length;
  const killed = count('Killed');
  const timedOut = count('Timeout');
  const undetected = results.filter((r) => r.status === 'Survived' || r.status === 'NoCoverage');
  const valid = killed + timedOut + undetected.length;
  const survivors = undetected.map((r) => {
    const where = `${relative(projectRoot, r.fileName)}:${r.location.start.line}:${r.location.start.column + 1}`;
    const text = `\`${where}\` ${r.mutatorName} → \`${(r.replacement ?? '').replace(/\s+/g, ' ').slice(0, 60)}\``;
    const line = readFileSync(r.fileName, 'utf8').split('\n')[r.location.start.line - 1] ?? '';
    return { text, mutator: r.mutatorName, replacement: r.replacement ?? '', line };
  });
  return {
    valid,
    killed,
    timedOut,
    survived: undetected.length,
    percent: valid === 0 ? 100 : ((killed + timedOut) / valid) * 100,
    survivors,
  };
}
