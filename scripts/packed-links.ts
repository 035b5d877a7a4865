// The READMEs packed into the kit link only to what the tarball holds: a relative link to any other file of the
// repository becomes plain text naming that file in the repository, since npm shows the README without it.
import { posix } from 'node:path';

// [text](target) with a relative target: not a URL (scheme:), not an anchor of the same page, not absolute.
const LINK = /(!?)\[([^\]]+)\]\((?![a-z][a-z0-9+.-]*:|#|\/)([^)\s]+)\)/gi;

/** The path a relative link of the README at `readme` (a path in the package) points to, its anchor left off. */
export function linkTarget(readme: string, target: string): string {
  return posix.normalize(posix.join(posix.dirname(readme), target.split('#')[0]!));
}

/** Every relative link target of `markdown`, resolved from `readme`'s folder. */
export function relativeLinks(readme: string, markdown: string): string[] {
  return [...markdown.matchAll(LINK)].map((m) => linkTarget(readme, m[3]!));
}

/** `markdown` with each relative link to a path outside `packed` written `text (repository: \`path\`)`. */
export function withPackedLinks(readme: string, markdown: string, packed: ReadonlySet<string>): string {
  return markdown.replace(LINK, (link, _image: string, text: string, target: string) => {
    const path = linkTarget(readme, target);
    if (packed.has(path)) return link;
    return text.replace(/`/g, '') === path ? `\`${path}\` (in the repository)` : `${text} (repository: \`${path}\`)`;
  });
}
