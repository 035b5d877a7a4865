// Turns a socket, DNS or TLS error into the one-line reason a person can act on.

export function describeNetworkError(error: unknown, url: URL): string {
  const { code = '', message = String(error) } = error as NodeJS.ErrnoException;
  const where = `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  if (code === 'ECONNREFUSED') return `connection refused at ${where} (is the service running?)`;
  if (code === 'ECONNRESET') return `connection reset by ${where} before a complete response`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return `cannot resolve host ${url.hostname}`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `host ${where} unreachable`;
  if (code.startsWith('CERT_') || code.includes('CERT') || code.includes('SELF_SIGNED')) {
    return `TLS certificate of ${where} rejected: ${_firstLine(message)}`;
  }
  if (code === 'EPROTO' || code.startsWith('ERR_SSL') || /ssl|tls/i.test(message)) {
    const openssl = /SSL routines:[^:]*:([^:]+)/.exec(message)?.[1];
    return `TLS handshake with ${where} failed (is it plain http?): ${openssl ?? _firstLine(message)}`;
  }
  if (code.startsWith('HPE_')) return `invalid HTTP response from ${where}: ${_firstLine(message)}`;
  return `${code ? `${code}: ` : ''}${_firstLine(message)}`;
}

const _firstLine = (text: string) => text.split('\n')[0]!.trim().slice(0, 200);
