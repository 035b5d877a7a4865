// Every file a run writes has a path of its own: a report that names another report, the step summary or a
// screenshot would silently overwrite it, so the run is refused before it touches anything.
import { readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { REPORT_NAME, screenshotNames } from './artifacts.ts';
import { answerWithin } from './fs-answer.ts';
import { CLIError } from '../tools/cli-error.ts';

export interface OutputPaths {
  artifacts: string;
  json: string | null;
  junit: string | null;
}

interface Output {
  /** As the user reads it: `--json r.json`, `the screenshot smoke-artifacts/frontend-ok.png`. */
  label: string;
  path: string;
}

/** Throws a CLIError naming a report and the output it would overwrite (same name after links, or same inode). */
export async function checkOutputPaths(
  { artifacts, json, junit }: OutputPaths,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const reports: Output[] = [
    ...(json ? [{ label: `--json ${json}`, path: json }] : []),
    ...(junit ? [{ label: `--junit ${junit}`, path: junit }] : []),
  ];
  if (!reports.length) return; // the screenshots' names differ; only a report can land on another output
  const summary = env.GITHUB_STEP_SUMMARY;
  const outputs: Output[] = [
    ...reports,
    ...(summary ? [{ label: `GITHUB_STEP_SUMMARY ${summary}`, path: summary }] : []),
    ...screenshotNames().map((name) => ({
      label: `the screenshot ${join(artifacts, name)}`,
      path: join(artifacts, name),
    })),
    { label: `the failure report ${join(artifacts, REPORT_NAME)}`, path: join(artifacts, REPORT_NAME) },
  ];
  const what = reports.map((r) => r.label).join(', ');
  const keys = await answerWithin(Promise.all(outputs.map((o) => _identity(o.path))), what);
  for (let i = 0; i < reports.length; i++) {
    for (let j = i + 1; j < outputs.length; j++) {
      if (keys[i]!.some((key) => keys[j]!.includes(key))) {
        throw new CLIError(`${outputs[i]!.label} and ${outputs[j]!.label} are the same file; give each its own path`);
      }
    }
  }
}

/**
 * What makes two paths one file: the path with its existing directories' links resolved, and, for a file that
 * exists, its device and inode (a link to it, hard or symbolic, is the same file under another name).
 */
async function _identity(path: string): Promise<string[]> {
  const full = resolve(path);
  const keys = [await _resolveExisting(full)];
  const found = await stat(full).catch(() => undefined);
  if (found) keys.push(`inode ${found.dev}:${found.ino}`);
  return keys;
}

const MAX_LINKS = 40; // as the kernel follows at most 40 links in one path

/**
 * `full` with its links resolved as far as they exist: a link to a file not there yet (which a write creates)
 * counts as its target, and the part of the path that does not exist yet is kept as written.
 */
async function _resolveExisting(full: string, links = 0): Promise<string> {
  const real = await realpath(full).catch(() => undefined);
  if (real) return real;
  const target = links < MAX_LINKS ? await readlink(full).catch(() => undefined) : undefined;
  if (target !== undefined) return _resolveExisting(resolve(dirname(full), target), links + 1);
  const parent = dirname(full);
  return parent === full ? full : join(await _resolveExisting(parent, links), basename(full));
}
