// A plain grey PNG written without a browser: the last resort when neither the page nor a failure card can be drawn.
import { writeFile } from 'node:fs/promises';
import { crc32, deflateSync } from 'node:zlib';

const WIDTH = 320;
const HEIGHT = 200;
const GREY = 0xd1;

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export function placeholderPng(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(WIDTH, 0);
  header.writeUInt32BE(HEIGHT, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale; compression, filter and interlace stay 0
  const row = Buffer.alloc(1 + WIDTH, GREY);
  row[0] = 0; // filter: none
  const pixels = deflateSync(Buffer.concat(Array.from({ length: HEIGHT }, () => row)));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

export const writePlaceholderPng = (path: string) => writeFile(path, placeholderPng());
