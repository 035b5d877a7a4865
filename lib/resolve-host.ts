// Every address a host name stands for, with `localhost` always meaning both loopbacks.
import { lookup as dnsLookup } from 'node:dns/promises';

export type Address = { address: string; family: number };
const LOOPBACK: Address[] = [
  { address: '::1', family: 6 },
  { address: '127.0.0.1', family: 4 },
];

/**
 * Every address of the host. A server may listen on ::1 only, 127.0.0.1 only or both, and /etc/hosts often
 * lists just one of them for `localhost`; like browsers (RFC 6761), localhost names always include both loopbacks.
 */
export async function resolveHost(host: string): Promise<Address[]> {
  const isLocal = host === 'localhost' || host.endsWith('.localhost');
  const found = await dnsLookup(host, { all: true, order: 'verbatim' }).catch((error: unknown) => {
    if (isLocal) return [];
    throw error;
  });
  if (!isLocal) return found;
  const all = [...found, ...LOOPBACK];
  return all.filter((a, i) => all.findIndex((b) => b.address === a.address) === i);
}
