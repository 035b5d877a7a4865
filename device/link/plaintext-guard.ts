// Whether the device may send its token over plain ws:// to BACKEND_URL's host: only to a loopback or private
// address, or a name that cannot be a public internet name (docs/access.md#the-device-keeps-its-token-to-itself).
import { BlockList, isIP } from 'node:net';

/** Loopback, RFC 1918, link-local, unique local (fc00::/7) and IPv6 link-local: never routed on the internet. */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['169.254.0.0', 16],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');
PRIVATE.addSubnet('fe80::', 10, 'ipv6');

/** Special-use names that resolve only inside a site (RFC 6761 localhost, RFC 6762 .local, RFC 8375 home.arpa). */
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa'];

/**
 * True when `hostname` (as URL.hostname gives it, IPv6 in brackets) is private. A name is not resolved: its
 * answer can change after start-up or be spoofed. So a name counts as public unless it has no dot (a container,
 * Compose or Kubernetes service name such as `backend`, resolved only by the local resolver's search domains),
 * is `localhost`, or ends in a special-use local suffix.
 */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '');
  const family = isIP(host);
  if (family === 4) return PRIVATE.check(host, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host)?.[1];
    return mapped ? PRIVATE.check(mapped, 'ipv4') : PRIVATE.check(host, 'ipv6');
  }
  if (host === 'localhost' || !host.includes('.')) return true;
  return LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

/**
 * The one-line reason to refuse start-up, or undefined: a token would cross a public network in the clear when
 * the socket is ws:// to a public host, unless DEVICE_ALLOW_PLAINTEXT=1 says the operator knows (a VPN, say).
 */
export function plaintextRefusal(socketUrl: string, { hasToken, allowed }: { hasToken: boolean; allowed: boolean }) {
  const url = new URL(socketUrl);
  if (!hasToken || allowed || url.protocol !== 'ws:' || isPrivateHost(url.hostname)) return undefined;
  return (
    `BACKEND_URL is plain http:// to ${url.hostname}, a public address: the device token would cross the ` +
    'network in the clear; use https://, or set DEVICE_ALLOW_PLAINTEXT=1 if the network is private anyway'
  );
}
