// Reads a Prometheus text-format exposition (what GET /metrics answers) into samples the tests can look up.
import { withDeadline } from './deadline.ts';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Every sample line; label values unescaped. Comment lines (# HELP, # TYPE) are skipped. */
export function parseExposition(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const brace = line.indexOf('{');
      const space = line.lastIndexOf(' ');
      const name = brace === -1 ? line.slice(0, space) : line.slice(0, brace);
      const labels: Record<string, string> = {};
      if (brace !== -1) {
        const body = line.slice(brace + 1, line.lastIndexOf('}'));
        for (const [, key, value] of body.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
          labels[key!] = value!.replace(/\\n/g, '\n').replace(/\\(.)/g, '$1');
        }
      }
      return { name, labels, value: Number(line.slice(space + 1)) };
    });
}

/** The one sample of `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** GET /metrics of a running service: the status, the content type and the text. */
export async function scrape(url: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await withDeadline(fetch(`${url}/metrics`), 10_000, `GET ${url}/metrics`);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}
