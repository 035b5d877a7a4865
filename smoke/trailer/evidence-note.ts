// The evidence of a smoke, kept where git keeps things: a JSON note on the smoked tree under refs/notes/smoke. The
// trailer is written before its commit exists, so the note is keyed by the tree, which the commit will then carry.
// This module writes the record, reads it back, and checks its shape.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isJsonObject } from '../../lib/json-object.ts';
import { shapeProblem } from '../result.ts';
import type { SmokeResult } from '../types.ts';
import type { Git } from './tree.ts';

export const NOTES_REF = 'refs/notes/smoke';
export const EVIDENCE_FORMAT = 'service-health-kit/smoke-evidence/1';
/**
 * The largest note read: a record is a few KiB (its smoke result keeps only the start of each body), so one past
 * this was not written by the trailer, and reading it whole would hold it in memory for nothing.
 */
export const MAX_NOTE_BYTES = 1024 * 1024;

/** What the parent commit showed, for a FAIL: a regression or not. */
export interface Baseline {
  /** The parent commit and its tree; null when the commit to be made has none. */
  parent: string | null;
  tree: string | null;
  /** The parent's verdict; null when unknown (no parent, no evidence and not smoked within the bound). */
  verdict: 'PASS' | 'FAIL' | null;
  /** evidence: read from the parent tree's note; smoked: the parent was smoked now; none: neither. */
  source: 'evidence' | 'smoked' | 'none';
  /** The words the trailer uses: `parent passed`, `parent failed too`, `no parent`, `parent not smoked: …`. */
  phrase: string;
}

export interface SmokeEvidence {
  format: typeof EVIDENCE_FORMAT;
  /** The smoked tree's full object name. */
  tree: string;
  verdict: 'PASS' | 'FAIL';
  /** The trailer line printed for it, exactly. */
  trailer: string;
  runtime: string;
  /** When the trailer started, ISO 8601. */
  at: string;
  /** sha256 of `compose config` (the stack as compose resolved it, copy's path replaced by `.`); null if unread. */
  composeConfig: string | null;
  /** service → image id, as the engine names the images the stack ran. */
  images: Record<string, string>;
  /** The smoke's --json result; null when it never ran (the stack did not come up). */
  smoke: SmokeResult | null;
  /** For a FAIL: the parent's verdict. */
  baseline: Baseline | null;
}

/** Writes the record as the note on its tree, replacing an earlier one: the latest smoke of a tree is its evidence. */
export async function writeEvidence(git: Git, evidence: SmokeEvidence): Promise<string | undefined> {
  const scratch = await mkdtemp(join(tmpdir(), 'smoke-evidence-'));
  try {
    const file = join(scratch, 'evidence.json');
    await writeFile(file, `${JSON.stringify(evidence)}\n`);
    const blob = await git.run(['hash-object', '-w', file]);
    if (blob.code !== 0) return `the evidence could not be stored (${git.why(['hash-object'], blob)})`;
    // -C takes the blob as it is (no message clean-up); the tool, not the user, is the note's author.
    const args = ['notes', `--ref=${NOTES_REF}`, 'add', '-f', '-C', blob.stdout.trim(), evidence.tree];
    const identity = ['-c', 'user.name=smoke trailer', '-c', 'user.email=smoke-trailer@localhost'];
    const note = await git.run([...identity, ...args]);
    return note.code === 0 ? undefined : `the evidence could not be noted (${git.why(args, note)})`;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export type ReadEvidence =
  | { found: true; evidence: SmokeEvidence }
  /** No notes at all in this repository (never fetched?), or none on this tree. */
  | { found: false; why: 'no-notes' | 'no-note'; problem: string }
  /** A note that is not a record, or could not be read: `unreadable` when git could not read it or it is too large. */
  | { found: false; why: 'malformed' | 'unreadable'; problem: string };

export async function readEvidence(git: Git, tree: string): Promise<ReadEvidence> {
  const ref = await git.run(['rev-parse', '--verify', '--quiet', NOTES_REF]);
  if (ref.code !== 0)
    return { found: false, why: 'no-notes', problem: `no smoke evidence in this repository (no ${NOTES_REF})` };
  const list = await git.run(['notes', `--ref=${NOTES_REF}`, 'list', tree]);
  const blob = list.stdout.trim();
  if (list.code !== 0 || blob === '')
    return { found: false, why: 'no-note', problem: `no smoke evidence for tree ${tree.slice(0, 12)}` };
  const size = await git.run(['cat-file', '-s', blob]);
  const bytes = Number(size.stdout.trim());
  if (size.code === 0 && bytes > MAX_NOTE_BYTES) {
    const what = `${bytes} bytes, more than the ${MAX_NOTE_BYTES} a smoke record may take: cannot tell what it says`;
    return { found: false, why: 'unreadable', problem: `the evidence note ${blob.slice(0, 12)} is ${what}` };
  }
  const show = await git.run(['cat-file', 'blob', blob], {}, MAX_NOTE_BYTES);
  if (show.code !== 0 || show.truncated) {
    const why = show.truncated ? `more than ${MAX_NOTE_BYTES} bytes` : git.why(['cat-file'], show);
    return {
      found: false,
      why: 'unreadable',
      problem: `the evidence note ${blob.slice(0, 12)} cannot be read (${why})`,
    };
  }
  return parseEvidence(show.stdout);
}

/** A note's text as a record, or why it is not one. */
export function parseEvidence(text: string): ReadEvidence {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { found: false, why: 'malformed', problem: 'the evidence note is not JSON' };
  }
  const wrong = evidenceProblem(value);
  return wrong
    ? { found: false, why: 'malformed', problem: `the evidence note is not a smoke record: ${wrong}` }
    : { found: true, evidence: value as SmokeEvidence };
}

function evidenceProblem(value: unknown): string | undefined {
  if (!isJsonObject(value)) return 'expected an object';
  if (value.format !== EVIDENCE_FORMAT) return `format is ${JSON.stringify(value.format)}, expected ${EVIDENCE_FORMAT}`;
  if (typeof value.tree !== 'string' || !/^[0-9a-f]{40,64}$/.test(value.tree)) return 'tree is not an object name';
  if (value.verdict !== 'PASS' && value.verdict !== 'FAIL') return 'verdict is neither PASS nor FAIL';
  for (const key of ['trailer', 'runtime', 'at'] as const)
    if (typeof value[key] !== 'string') return `${key} is not a string`;
  if (value.composeConfig !== null && typeof value.composeConfig !== 'string') return 'composeConfig is not a string';
  if (!isJsonObject(value.images) || !Object.values(value.images).every((id) => typeof id === 'string'))
    return 'images is not a map of image ids';
  if (value.smoke !== null) {
    const smoke = shapeProblem(value.smoke);
    if (smoke) return `smoke: ${smoke}`;
  }
  if (value.baseline !== null && !isJsonObject(value.baseline)) return 'baseline is not an object';
  return undefined;
}
