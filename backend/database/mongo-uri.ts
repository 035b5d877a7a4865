// What the backend reads from its MongoDB URI before connecting: whether the driver accepts it, and the database.
import { MongoClient } from 'mongodb';
import { safeDecode } from '../../lib/safe-decode.ts';

/**
 * Why the driver refuses the URI, in its words, or undefined when it accepts it. The client's constructor parses
 * the URI and its options synchronously and opens nothing, so a bad option, port or escape is found at start-up
 * rather than as an unexpected error when the monitor starts. (An srv URI's DNS is looked up only on connect.)
 */
export function driverRejection(uri: string): string | undefined {
  try {
    new MongoClient(uri);
    return undefined;
  } catch (error) {
    // Not only the driver's MongoError: its URL parser (mongodb-connection-string-url) throws a MongoParseError
    // of its own. The constructor does nothing but parse, so whatever it throws is about the URI.
    return error instanceof Error ? error.message : String(error);
  }
}

/** The database named in the URI's path, or the driver's default `test`. */
export function databaseName(uri: string): string {
  const path = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/i.exec(uri)?.[1];
  return path ? safeDecode(path) : 'test';
}
