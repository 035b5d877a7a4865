// Whether a path is left out of the build context by .dockerignore (the subset of its syntax we use).
// Patterns are anchored at the context root; `**` spans directories, `*` and `?` stay within one;
// a pattern that matches a directory leaves out everything under it; `!pattern` takes a path back.

export function createDockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => ({
      keep: line.startsWith('!'),
      pattern: toRegExp(line.replace(/^!/, '').replace(/^\/+|\/+$/g, '')),
    }));
  return function isIgnored(path: string): boolean {
    const parts = path.split('/');
    // The path itself or any of its parent directories.
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let ignored = false;
    for (const rule of rules) if (candidates.some((c) => rule.pattern.test(c))) ignored = !rule.keep;
    return ignored;
  };
}

function toRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      source += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
