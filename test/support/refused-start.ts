// Starts a service with settings it must refuse and checks how it refuses (the contract's start-up errors:
// docs/contract.md#settings-and-start-up-errors).
import * as assert from 'uvu/assert';
import { spawnService, type Service, type ServiceOptions } from './spawn-service.ts';

/** The frontend logs plain console lines (docs/contract.md#logs), so it never writes the JSON fatal line. */
const PLAIN_CONSOLE = new Set(['frontend/main.ts']);
const STACK_FRAME = /\bat \S+:\d+/;

export interface Refusal {
  service: Service;
  /** The one line on stderr. */
  line: string;
  /** The same error as a parsed JSON log line on stdout, where the service writes one. */
  fatal: Record<string, unknown> | undefined;
}

/**
 * Starts `entry` and asserts it refuses: exit 1, exactly one line on stderr matching `expected` (a string is a
 * prefix), no stack trace; on stdout, outside local mode, the same error as one level-60 JSON line with a `code`
 * and no stack (so log pipelines see why a container crash-loops), else nothing.
 */
export async function expectRefusal(
  entry: string,
  options: ServiceOptions,
  expected: RegExp | string,
): Promise<Refusal> {
  const service = await spawnService(entry, { ...options, waitPath: false });
  const code = await service.waitExit(15_000);
  const output = service.lines.join('\n');
  assert.is(code, 1, `${entry} exit code with ${JSON.stringify(options.env ?? {})}:\n${output}`);
  const errors = service.stderr.filter(Boolean);
  assert.is(errors.length, 1, `one line on stderr, got:\n${errors.join('\n')}`);
  const line = errors[0]!;
  if (typeof expected === 'string') assert.ok(line.startsWith(expected), `${line}\ndoes not start with\n${expected}`);
  else assert.match(line, expected);
  assert.not.match(line, STACK_FRAME, 'no stack trace');
  const logged = service.stdout.filter(Boolean);
  if (PLAIN_CONSOLE.has(entry) || options.env?.NODE_ENV === 'local') {
    assert.equal(logged, [], 'the human line only');
    return { service, line, fatal: undefined };
  }
  assert.is(logged.length, 1, `one JSON line on stdout, got:\n${logged.join('\n')}`);
  const fatal = JSON.parse(logged[0]!) as Record<string, unknown>;
  const name = entry.split('/')[0];
  assert.equal([fatal.level, fatal.name, `${name}: ${fatal.msg}`], [60, name, line]);
  assert.type(fatal.code, 'string');
  assert.not.ok(
    'err' in fatal || 'stack' in fatal || STACK_FRAME.test(logged[0]!),
    'no stack for a configuration error',
  );
  return { service, line, fatal };
}
