// Whether a port speaks TLS: asked only after a plain-http request was reset unanswered, so that the reason can
// say what a TLS port does to such a request instead of leaving a bare "connection reset".
import { connect } from 'node:tls';

/**
 * True when a TLS handshake with `address:port` completes within `ms`. The certificate is not judged: the question
 * is only which protocol the port speaks, and nothing is sent over the connection.
 */
export function speaksTls(address: string, port: number, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    const done = (answer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), Math.max(0, ms));
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}
