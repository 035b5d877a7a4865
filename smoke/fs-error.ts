// A file-system error code as a short phrase someone can act on: "EEXIST, a file is in the way".

const WHY: Record<string, string> = {
  EEXIST: 'a file is in the way',
  ENOTDIR: 'a file is in the way',
  EISDIR: 'that is a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'no such directory, and it cannot be created there',
  ENOSPC: 'no space left on the device',
  EIO: 'input/output error',
};

export function describeFsError(error: unknown): string {
  const { code, message = String(error) } = error as NodeJS.ErrnoException;
  const why = (code && WHY[code]) ?? message.split('\n')[0]!;
  return code ? `${code}, ${why}` : why;
}
