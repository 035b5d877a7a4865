// A command the stand-in answers with `ok: 0`, in mongod's shape: code, codeName and errmsg.
import type { Document } from 'bson';

export class CommandError extends Error {
  readonly code: number;
  readonly codeName: string;

  constructor(code: number, codeName: string, message: string) {
    super(message);
    this.code = code;
    this.codeName = codeName;
  }

  reply(): Document {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName };
  }
}
