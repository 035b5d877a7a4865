// Serves the page's files from memory with a strong ETag; a matching If-None-Match gets 304 and no body.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { MiddlewareHandler } from 'hono';

/** Only these are served, so a stray source or editor file in the folder never is. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface StaticFile {
  body: Uint8Array<ArrayBuffer>;
  type: string;
  etag: string;
}

/** Reads the folder once: the files are part of the release, and a lookup in a map cannot escape the folder. */
export function loadStaticFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const name of readdirSync(dir).sort()) {
    const type = CONTENT_TYPES[extname(name)];
    if (!type || name.startsWith('.')) continue;
    const body = new Uint8Array(readFileSync(join(dir, name)));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    files.set(`/${name}`, { body, type, etag });
  }
  return files;
}

/** RFC 9110 13.1.2: If-None-Match uses weak comparison, and `*` matches any current representation. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

export function staticFiles(files: Map<string, StaticFile>, index = '/index.html'): MiddlewareHandler {
  return async function serveStaticFile(c, next) {
    const file = files.get(c.req.path === '/' ? index : c.req.path);
    if (!file || (c.req.method !== 'GET' && c.req.method !== 'HEAD')) return next();
    // no-cache: the browser may keep the file but must ask first, which costs a 304 and no body.
    const headers = { ETag: file.etag, 'Cache-Control': 'no-cache' };
    if (etagMatches(c.req.header('if-none-match'), file.etag)) return new Response(null, { status: 304, headers });
    return new Response(file.body, { status: 200, headers: { ...headers, 'Content-Type': file.type } });
  };
}
