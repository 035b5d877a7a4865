// Sends what a unit file prints through process.stdout and process.stderr (console.log, uvu's report) to `send`
// instead, so a batch can tell the runner which file printed it; the function returned puts the streams back.
type Write = typeof process.stdout.write;

export function divertOutput(send: (text: string) => void): () => void {
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  const diverted = function write(chunk: unknown, ...rest: unknown[]): boolean {
    send(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    if (callback) process.nextTick(callback);
    return true;
  } as Write;
  for (const stream of streams) stream.write = diverted;
  return () => streams.forEach((stream, i) => (stream.write = originals[i]!));
}
