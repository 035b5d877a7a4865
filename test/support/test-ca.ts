// A throwaway certificate authority made with openssl for one test file: a CA and server certificates it signs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface IssuedCert {
  certFile: string;
  keyFile: string;
  /** PEM text of the certificate (followed by nothing: the CA is not part of the chain file). */
  cert: string;
  key: string;
}

export interface TestCa {
  dir: string;
  /** The CA's certificate file: what a client is told to trust (BACKEND_CA_FILE, `--cacert`, `ca`). */
  caFile: string;
  ca: string;
  /**
   * A server certificate for `names` (DNS names and IP literals, by default localhost, 127.0.0.1 and ::1), signed
   * by this CA, valid for a day.
   */
  issue(label: string, names?: string[]): IssuedCert;
  remove(): void;
}

const DEFAULT_NAMES = ['localhost', '127.0.0.1', '::1'];
// P-256 keys: generated in milliseconds, where RSA 2048 takes a noticeable while on a busy machine.
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

const openssl = (args: string[], cwd: string) =>
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

/** `commonName` tells two CAs apart in a failure message. */
export function createTestCa(commonName = 'service-health-kit test CA'): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'test-ca-'));
  openssl(
    [
      'req',
      '-x509',
      ...NEW_KEY,
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  const caFile = join(dir, 'ca.crt');
  let serial = 0;
  return {
    dir,
    caFile,
    ca: readFileSync(caFile, 'utf8'),
    issue(label, names = DEFAULT_NAMES) {
      const base = `${label}-${++serial}`;
      const altNames = names.map((name) => (/^[\d.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
      writeFileSync(
        join(dir, `${base}.ext`),
        `subjectAltName=${altNames}\nbasicConstraints=critical,CA:FALSE\n` +
          'keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
      );
      openssl(
        ['req', '-new', ...NEW_KEY, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${names[0]}`],
        dir,
      );
      openssl(
        [
          'x509',
          '-req',
          '-in',
          `${base}.csr`,
          '-CA',
          'ca.crt',
          '-CAkey',
          'ca.key',
          '-set_serial',
          String(serial),
          '-days',
          '1',
          '-extfile',
          `${base}.ext`,
          '-out',
          `${base}.crt`,
        ],
        dir,
      );
      const certFile = join(dir, `${base}.crt`);
      const keyFile = join(dir, `${base}.key`);
      return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
