// --ca-file: a private CA the smoke trusts, and only it. The HTTP probes verify against it alone (node:https `ca`);
// Chromium cannot be handed a CA without touching the user's store, so Node verifies the frontend's chain and name
// against the file first, and Chromium is told to accept that one verified leaf's key
// (--ignore-certificate-errors-spki-list), not every certificate.
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { CLIError } from '../tools/cli-error.ts';

/** The file's PEM text, checked to hold at least one certificate; an error names the source, never the text. */
export function readCaFile(path: string, source: string, read = (file: string) => readFileSync(file, 'utf8')): string {
  let text: string;
  try {
    text = read(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CLIError(`${source} cannot be read (${code}): give the path of the CA's certificate (PEM)`, {
      cause: error,
    });
  }
  try {
    new X509Certificate(text);
  } catch (error) {
    throw new CLIError(`${source} holds no PEM certificate: give the CA's certificate (-----BEGIN CERTIFICATE-----)`, {
      cause: error,
    });
  }
  return text;
}

export type LeafKey = { spki: string } | { problem: string };

/**
 * sha256 of the frontend's certificate's public key (base64, Chromium's form), once a TLS handshake has verified
 * its chain against `ca` and its name against the URL's host; else why not, in one line.
 */
export function verifiedLeafKey(frontend: string, ca: string, timeoutMs: number): Promise<LeafKey> {
  const url = new URL(frontend);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || 443);
  return new Promise((resolve) => {
    const socket = connect({ host, port, servername: /^[\d.:]+$/.test(host) ? undefined : host, ca });
    const done = (answer: LeafKey) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done({ problem: `no TLS handshake within ${timeoutMs}ms` }), timeoutMs);
    socket.once('secureConnect', () => {
      const key = socket.getPeerX509Certificate()?.publicKey.export({ type: 'spki', format: 'der' });
      done(key ? { spki: createHash('sha256').update(key).digest('base64') } : { problem: 'no certificate sent' });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => done({ problem: error.code ?? error.message }));
  });
}

/** Chromium's flag accepting exactly that key. */
export const acceptKeyFlag = (spki: string) => `--ignore-certificate-errors-spki-list=${spki}`;
