// Before a throughput comparison: the baseline answers each path with a body as long as ours and the same status and
// Content-Type, so the ratio compares the same work (a shorter body is fewer bytes to build and send).

/** The body with its uptime's digits blanked: two processes started apart print a different number of them. */
export function comparable(body: string): string {
  return body.replace(/"uptime":[0-9.e+-]+/, '"uptime":0');
}

/** Throws, naming both answers, when the two differ in status, Content-Type or the byte length of the body. */
export async function assertSameBodies(ours: string, baseline: string, paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const [a, b] = await Promise.all([ours, baseline].map((base) => fetch(base + path, { cache: 'no-store' })));
    const [bodyA, bodyB] = await Promise.all([a!.text(), b!.text()]);
    const lengths = [bodyA, bodyB].map((body) => Buffer.byteLength(comparable(body)));
    const type = (r: Response) => r.headers.get('content-type');
    if (a!.status !== b!.status || type(a!) !== type(b!) || lengths[0] !== lengths[1]) {
      throw new Error(
        `${path}: the baseline does not answer as ours does: ours ${a!.status} ${type(a!)} ${bodyA}, ` +
          `baseline ${b!.status} ${type(b!)} ${bodyB}`,
      );
    }
  }
}
