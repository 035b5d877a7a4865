// The values of the readings in a device's spool directory, read from its files: a line there has been read from
// the serial port and written (write(2)) before it was sent, so it survives the device process being SIGKILLed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRecord } from '../../../device/spool/spool-record.ts';

/** Every reading value recorded in `dir`'s segments (acknowledged or not, until its segment is removed). */
export function spoolValues(dir: string): Set<string> {
  const values = new Set<string>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.spool'))) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dir, name));
    } catch {
      continue; // removed since the listing: everything in it was acknowledged
    }
    let start = 0;
    for (let end = bytes.indexOf(10); end >= 0; start = end + 1, end = bytes.indexOf(10, start)) {
      const record = decodeRecord(bytes.subarray(start, end));
      if (record?.type !== 'reading') continue;
      const json = bytes.subarray(start + record.jsonOffset, start + record.jsonOffset + record.jsonBytes);
      values.add((JSON.parse(json.toString('utf8')) as { value: string }).value);
    }
  }
  return values;
}
