// What the backend reads from its MongoDB URI: the database name (redaction is lib/redact-url.ts's).

/** The database named in the URI's path, or the driver's default `test`. */
export function databaseName(uri: string): string {
  const path = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/i.exec(uri)?.[1];
  return path ? safeDecode(path) : 'test';
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
