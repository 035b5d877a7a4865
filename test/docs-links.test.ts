// Every relative link in the repository's Markdown names a file or folder that exists, and an anchor on a Markdown
// file names one of its headings: a moved file or a renamed section shows here, not in a reader's 404.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { linkTarget } from '../scripts/packed-links.ts';
import { root } from './support/spawn-service.ts';

// [text](target): a relative target, not a URL (scheme:), a same-page anchor or an absolute path.
const LINK = /!?\[[^\]]*\]\((?![a-z][a-z0-9+.-]*:|\/)([^)\s]+)\)/gi;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of `markdown`'s headings (outside code blocks), a repeated heading numbered as GitHub does. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const anchor = anchorOf(heading[1]!);
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  return anchors;
}

/** Each broken relative link of the Markdown file `file`, as `file: target (why)`. */
export function brokenLinks(
  file: string,
  markdown: string,
  exists: (path: string) => boolean,
  readText: (path: string) => string,
): string[] {
  const broken: string[] = [];
  const prose = markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '');
  for (const [, target] of prose.matchAll(LINK)) {
    const [path, anchor] = target!.split('#');
    const resolved = path ? linkTarget(file, path).replace(/\/$/, '') : file;
    if (!exists(resolved)) broken.push(`${file}: ${target} (no ${resolved})`);
    else if (anchor && resolved.endsWith('.md') && !anchorsOf(readText(resolved)).has(anchor))
      broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
  }
  return broken;
}

const read = (path: string) => readFileSync(join(root, path), 'utf8');
const onDisk = (path: string) => existsSync(join(root, path));
const markdownFiles = () =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: root })
    .toString()
    .split('\n')
    .filter((file) => file && existsSync(join(root, file)));

test('a heading gives the anchor GitHub gives it', () => {
  assert.ok(anchorsOf('# Backend (backend/)\n## Readings in MongoDB\n').has('backend-backend'));
  assert.ok(anchorsOf('## Readings in MongoDB').has('readings-in-mongodb'));
  assert.equal([...anchorsOf('## Use\n```\n# not a heading\n```\n## Use')], ['use', 'use-1']);
});

test('a link to a missing file or heading is named; one to a file, folder or heading is not', () => {
  const files = new Map([
    ['docs/a.md', '# A\n## Rooms\n'],
    ['backend/x.ts', ''],
    ['backend', ''],
  ]);
  const exists = (path: string) => files.has(path);
  const readText = (path: string) => files.get(path)!;
  const text = '[x](../backend/x.ts) [room](../backend/) [gone](../backend/y.ts) [web](https://e.org/z) [top](#a)';
  assert.equal(brokenLinks('docs/a.md', text, exists, readText), ['docs/a.md: ../backend/y.ts (no backend/y.ts)']);
  assert.equal(brokenLinks('docs/a.md', '[r](#rooms) [s](a.md#spool)', exists, readText), [
    'docs/a.md: a.md#spool (no heading #spool in docs/a.md)',
  ]);
});

test('every relative link in the repository names a file that exists, and a heading that exists', () => {
  const files = markdownFiles();
  assert.ok(files.length > 20, `read ${files.length} Markdown files`);
  const broken = files.flatMap((file) => brokenLinks(file, read(file), onDisk, read));
  assert.equal(broken, []);
});

test.run();
