// New TLS connections a second to a port: 10 clients opening, verifying and closing connections back to back, each a
// full handshake or each resuming the session the server gave the client's first one (what a client with a ticket
// pays). A resumed connection gets no new ticket from Node, so the first one is reused, as TLS 1.3 tickets may be.
import { connect, type ConnectionOptions } from 'node:tls';

const CLIENTS = 10;
/** A handshake, or a session ticket after it, that takes longer is a failed run, not a hung bench. */
const CONNECTION_TIMEOUT_MS = 5000;

export interface Handshakes {
  perSecond: number;
  /** How many of them resumed a session (0 when `resume` is off). */
  resumed: number;
  completed: number;
}

export async function handshakesPerSecond(
  port: number,
  ca: string,
  { seconds, resume }: { seconds: number; resume: boolean },
): Promise<Handshakes> {
  const until = performance.now() + seconds * 1000;
  const counts = { completed: 0, resumed: 0 };
  const client = async () => {
    let session: Buffer | undefined;
    while (performance.now() < until) {
      const options = { host: '127.0.0.1', port, ca, servername: 'localhost', session: resume ? session : undefined };
      const answer = await handshake(options, resume && !session);
      counts.completed++;
      if (answer.reused) counts.resumed++;
      session ??= answer.session;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return { ...counts, perSecond: counts.completed / ((performance.now() - started) / 1000) };
}

/** One connection: done at its handshake, or (to resume the next ones) once the server's ticket arrived after it. */
function handshake(options: ConnectionOptions, waitForTicket: boolean) {
  return new Promise<{ reused: boolean; session?: Buffer }>((resolve, reject) => {
    const socket = connect(options);
    socket.setTimeout(CONNECTION_TIMEOUT_MS, () => socket.destroy(new Error('no handshake or ticket within 5 s')));
    const done = (session?: Buffer) => {
      resolve({ reused: socket.isSessionReused(), session });
      socket.destroy();
    };
    socket.once('secureConnect', () => {
      if (!waitForTicket) done();
    });
    if (waitForTicket) socket.once('session', (session: Buffer) => done(session));
    socket.once('error', reject);
  });
}
