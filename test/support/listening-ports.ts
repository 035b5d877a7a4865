// The ports a service says it bound, read from its start-up line: services started on PORT=0 and METRICS_PORT=0
// take kernel-chosen ports, so the line is the only place the test learns them (no port handed over and lost).
const ANSI = /\x1b\[[0-9;]*m/g;
const FRONTEND_LINE = new RegExp(
  '^frontend listening on \\S+(?: \\S+)? port (\\d+)(?:, HTTPS on port (\\d+))?(?: over HTTPS)?' +
    '(?:; metrics on port (\\d+))?;',
);

export interface ListeningPorts {
  port: number;
  /** The management port (/metrics), when the service opened one. */
  metricsPort?: number;
  /** The frontend's HTTPS port, when HTTPS_PORT opened one beside PORT. */
  httpsPort?: number;
}

/**
 * The ports from the first start-up line in `lines`, or undefined before it arrives. Three shapes: the JSON record
 * the backend and device write in production (`"msg":"… listening","port":…,"metricsPort":…`), the same record as
 * the local mode's pretty printer lays it out (the message line, then one indented `key: value` line per field),
 * and the frontend's plain line (`frontend listening on HOST port N…`, docs/contract.md#logs).
 */
export function listeningPorts(lines: readonly string[]): ListeningPorts | undefined {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(ANSI, '');
    const found = line.startsWith('{') ? fromJson(line) : (fromPretty(line, lines, i) ?? fromFrontend(line));
    if (found) return found;
  }
  return undefined;
}

function fromJson(line: string): ListeningPorts | undefined {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof record.msg !== 'string' || !record.msg.endsWith(' listening')) return undefined;
  return ports(record.port, record.metricsPort);
}

/** pino-pretty: `[time] INFO (name/pid): … listening`, then `    port: 123`, `    metricsPort: 456`, … */
function fromPretty(line: string, lines: readonly string[], at: number): ListeningPorts | undefined {
  if (!/^\[[^\]]*\] INFO \([^)]*\): \S.* listening$/.test(line)) return undefined;
  const fields: Record<string, unknown> = {};
  for (let i = at + 1; i < lines.length; i++) {
    const field = /^ {4}(\w+): (.*)$/.exec(lines[i]!.replace(ANSI, ''));
    if (!field) break;
    fields[field[1]!] = Number(field[2]);
  }
  // `host` comes after the ports in both records: until it is here, the pipe may not have brought them all yet.
  return 'host' in fields ? ports(fields.port, fields.metricsPort) : undefined;
}

/** `frontend listening on HOST port N[, HTTPS on port M][ over HTTPS][; metrics on port K]; backend …` */
function fromFrontend(line: string): ListeningPorts | undefined {
  const found = FRONTEND_LINE.exec(line);
  if (!found) return undefined;
  const [, port, httpsPort, metricsPort] = found.map(Number);
  return { ...ports(port, metricsPort)!, ...(httpsPort ? { httpsPort } : {}) };
}

function ports(port: unknown, metricsPort: unknown): ListeningPorts | undefined {
  if (typeof port !== 'number' || !(port > 0)) return undefined;
  return typeof metricsPort === 'number' && metricsPort > 0 ? { port, metricsPort } : { port };
}
