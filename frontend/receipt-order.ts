// The order "latest" means, as the backend keeps it: by time of receipt (`receivedAt`), then `seq`, never the
// device's clock, so a device whose clock went back can neither pin nor hide its newest reading (docs/contract.md).

export interface Received {
  /** ISO 8601 time the backend received it; the device's `timestamp` stands in for a backend that does not say. */
  receivedAt: string;
  seq: number;
}

/** Negative when `a` was received before `b`: for sort(), oldest first. */
export function byReceipt(a: Received, b: Received): number {
  return Date.parse(a.receivedAt) - Date.parse(b.receivedAt) || a.seq - b.seq;
}

/** The `receivedAt` of a reading as the backend sent it, or its `timestamp` when that is missing or not a time. */
export function receivedAtOf(reading: { receivedAt?: unknown; timestamp: string }): string {
  const given = reading.receivedAt;
  return typeof given === 'string' && !Number.isNaN(Date.parse(given)) ? given : reading.timestamp;
}
