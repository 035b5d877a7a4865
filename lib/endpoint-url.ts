// The one way a service's base URL and an endpoint path are joined, for the smoke's probes, the frontend's and the
// device's socket.

/**
 * `http://host/prefix/` + `/api/health` → `http://host/prefix/api/health`: a service behind a path prefix keeps it,
 * however many slashes either side brings; the base's query and fragment are not the endpoint's, so they go.
 */
export function endpointUrl(base: string, path: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  url.search = '';
  url.hash = '';
  return url.href;
}

/** `endpointUrl` for a WebSocket: `http(s)://host/prefix/` + `/api/x` → `ws(s)://host/prefix/api/x`. */
export function websocketUrl(base: string, path: string): string {
  const url = new URL(endpointUrl(base, path));
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}
