// One TLS handshake by `openssl s_client` (what a scanner does), offering only the suites a test names: which
// suite the server chose, or that it refused them all.
import { runCommand } from '../../tools/child-process.ts';

export interface Handshake {
  /** The suite the server chose; null when the handshake failed. */
  cipher: string | null;
  /** s_client's last line of complaint (or of output), for a failure message. */
  said: string;
}

/**
 * TLS 1.2 offering only `cipher` (an OpenSSL name such as ECDHE-ECDSA-AES128-SHA), or TLS 1.3 with its defaults
 * when `cipher` is 'TLSv1.3'. s_client reads no input (stdin is /dev/null), so it ends after the handshake.
 */
export async function handshake(port: number, cipher: string, host = '127.0.0.1'): Promise<Handshake> {
  const offer = cipher === 'TLSv1.3' ? ['-tls1_3'] : ['-tls1_2', '-cipher', cipher];
  const run = await runCommand('openssl', ['s_client', '-connect', `${host}:${port}`, ...offer], {
    timeoutMs: 10_000,
  });
  if (run.missing) throw new Error('openssl is not installed');
  const chosen = /Cipher is (\S+)/.exec(run.stdout)?.[1];
  const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');
  const said = lines(run.stderr).at(-1) ?? lines(run.stdout).at(-1) ?? `exit ${run.code}`;
  return { cipher: chosen && chosen !== '(NONE)' ? chosen : null, said };
}
