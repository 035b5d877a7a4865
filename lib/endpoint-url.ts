// The one way a service's base URL and an endpoint path are joined, for the smoke's probes and the frontend's.

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
