// One file of the device's spool: an append-only segment of line records (spool-record.ts), named by a number
// that grows with each new segment, so the directory listing is the spool's order.
import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

export interface SpoolSegment {
  readonly id: number;
  readonly path: string;
  /** The file's length as this process knows it (what it read, plus what it appended). */
  readonly bytes: number;
  /**
   * Writes the line at the end with write(2), so it is in the kernel (and survives a SIGKILL) when this returns;
   * returns the offset it starts at. A failed write (a full disk) is cut off again and thrown.
   */
  append(line: Buffer): number;
  /** The bytes from `start` to `end`. */
  read(start: number, end: number): Buffer;
  /** Every line ending in `\n` with its offset (without the `\n`); `tornBytes` after the last one. */
  lines(): { lines: Array<{ offset: number; line: Buffer }>; tornBytes: number };
  /** False once the file was removed (its directory deleted): the open file still reads, no name finds it. */
  readonly linked: boolean;
  /** fdatasync: what was appended survives a power loss. */
  sync(): void;
  close(): void;
  /** Closes and deletes the file. */
  remove(): void;
}

const NAME = /^readings-(\d{12})\.spool$/;

const segmentName = (id: number) => `readings-${String(id).padStart(12, '0')}.spool`;

/** The segment numbers in `dir`, oldest first; other files are left alone. */
export function listSegments(dir: string): number[] {
  return readdirSync(dir)
    .map((name) => NAME.exec(name)?.[1])
    .filter((id) => id !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** A new, empty segment (it must not exist yet); its directory entry is synced, so a power loss keeps it. */
export function createSegment(dir: string, id: number): SpoolSegment {
  const segment = open(dir, id, 'ax+');
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
  return segment;
}

/** An existing segment, for reading (a new process never appends to an old segment: its end may be torn). */
export const openSegment = (dir: string, id: number): SpoolSegment => open(dir, id, 'r');

function open(dir: string, id: number, flags: string): SpoolSegment {
  const path = join(dir, segmentName(id));
  const fd = openSync(path, flags);
  let bytes = fstatSync(fd).size;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    closeSync(fd);
  };
  const read = (start: number, end: number) => {
    const buffer = Buffer.allocUnsafe(end - start);
    let done = 0;
    while (done < buffer.length) {
      const n = readSync(fd, buffer, done, buffer.length - done, start + done);
      if (n === 0) throw new Error(`${path} ends at ${start + done}, before ${end}`);
      done += n;
    }
    return buffer;
  };

  return {
    id,
    path,
    get bytes() {
      return bytes;
    },
    append(line) {
      const offset = bytes;
      try {
        for (let written = 0; written < line.length;) written += writeSync(fd, line, written);
      } catch (error) {
        // A partial line would glue itself to the next one: cut it off, so only this record is lost.
        try {
          ftruncateSync(fd, offset);
        } catch {
          /* the next start skips the torn line by its checksum */
        }
        throw error;
      }
      bytes += line.length;
      return offset;
    },
    read,
    get linked() {
      return closed || fstatSync(fd).nlink > 0;
    },
    lines() {
      const all = read(0, bytes);
      const lines: Array<{ offset: number; line: Buffer }> = [];
      let offset = 0;
      for (let end = all.indexOf(0x0a); end !== -1; end = all.indexOf(0x0a, offset)) {
        lines.push({ offset, line: all.subarray(offset, end) });
        offset = end + 1;
      }
      return { lines, tornBytes: all.length - offset };
    },
    sync() {
      if (!closed) fdatasyncSync(fd);
    },
    close,
    remove() {
      close();
      try {
        unlinkSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // gone with its directory
      }
    },
  };
}
