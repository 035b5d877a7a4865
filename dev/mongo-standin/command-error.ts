// A command the stand-in answers with `ok: 0`, in mongod's shape: code, codeName, errmsg and any further fields
// mongod adds (keyPattern and keyValue for a duplicate key).
import type { Document } from 'bson';

export class CommandError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly details: Document;

  constructor(code: number, codeName: string, message: string, details: Document = {}) {
    super(message);
    this.code = code;
    this.codeName = codeName;
    this.details = details;
  }

  reply(): Document {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.details };
  }
}
