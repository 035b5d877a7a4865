// Colour only for a person at a terminal: never when piped, never with NO_COLOR, never for TERM=dumb.

export interface Colors {
  enabled: boolean;
  green(text: string): string;
  red(text: string): string;
  dim(text: string): string;
}

export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
}

export function createColors(enabled: boolean): Colors {
  const paint = (open: number, close: number) => (text: string) =>
    enabled ? `\u001B[${open}m${text}\u001B[${close}m` : text;
  return { enabled, green: paint(32, 39), red: paint(31, 39), dim: paint(2, 22) };
}
