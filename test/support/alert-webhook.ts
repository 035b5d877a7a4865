// A webhook receiver for Alertmanager: keeps every notification it is sent (the webhook's JSON body), with the
// path it came to (the receiver) and when it arrived.
import { listen, type Listening } from './listen.ts';

export interface Notification {
  /** The path, e.g. /page: the test's configuration gives each receiver its own. */
  receiver: string;
  at: number;
  status: 'firing' | 'resolved';
  alerts: { status: 'firing' | 'resolved'; labels: Record<string, string> }[];
}

export interface AlertWebhook extends Listening {
  received: Notification[];
}

export async function startAlertWebhook(): Promise<AlertWebhook> {
  const received: Notification[] = [];
  const server = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<Notification, 'receiver' | 'at'>;
      received.push({ receiver: req.url ?? '', at: Date.now(), status: body.status, alerts: body.alerts });
      res.writeHead(200).end();
    });
  });
  return Object.assign(server, { received });
}
