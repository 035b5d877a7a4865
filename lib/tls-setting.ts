// TLS_CERT_FILE + TLS_KEY_FILE: the certificate chain and key a service serves HTTPS with (docs/access.md).
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { ConfigError } from './config-error.ts';
import { readString } from './env.ts';

type Env = Record<string, string | undefined>;

/**
 * The TLS 1.2 suites served: Mozilla's "intermediate" profile without its DHE suites, so ECDHE key exchange and
 * AEAD ciphers only (no CBC, no SHA-1 MAC, no CCM8 or ARIA: what a scanner flags in Node's defaults). TLS 1.3's
 * suites are not named here, so Node offers its own (all AEAD). deploy/swarm/lb/haproxy.cfg serves the same list.
 */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/** PEM text as read from the two files; serve.ts hands it to node:https. */
export interface TlsFiles {
  cert: string;
  key: string;
}

/**
 * Both files read and checked to make a pair, or undefined when neither setting is set (plain HTTP). One without
 * the other, a file that cannot be read, or a key that does not belong to the certificate is a ConfigError that
 * names the setting: never the key's text, and the reason is OpenSSL's, which quotes none of it.
 */
export function readTlsFiles(
  env: Env,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): TlsFiles | undefined {
  const certPath = readString(env, 'TLS_CERT_FILE');
  const keyPath = readString(env, 'TLS_KEY_FILE');
  if (certPath === undefined && keyPath === undefined) return undefined;
  if (certPath === undefined || keyPath === undefined) {
    const [set, unset] = certPath === undefined ? ['TLS_KEY_FILE', 'TLS_CERT_FILE'] : ['TLS_CERT_FILE', 'TLS_KEY_FILE'];
    throw new ConfigError(`${set} is set but ${unset} is not: set both to serve HTTPS, or neither for plain HTTP`);
  }
  const files = { cert: _read('TLS_CERT_FILE', certPath, readFile), key: _read('TLS_KEY_FILE', keyPath, readFile) };
  try {
    createSecureContext(files);
  } catch (error) {
    const reason = (error as Error).message.replace(/^error:[0-9A-F]+:/, '');
    throw new ConfigError(`TLS_CERT_FILE and TLS_KEY_FILE are not a certificate and its key: ${reason}`, {
      cause: error,
    });
  }
  return files;
}

function _read(name: string, path: string, readFile: (path: string) => string): string {
  try {
    return readFile(path);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new ConfigError(`${name} names a file that cannot be read: ${code ?? message}`, { cause: error });
  }
}
