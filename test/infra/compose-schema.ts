// The Compose Specification JSON schema (as shipped in the dclint package) compiled with ajv.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv } from 'ajv';

export type ComposeCheck = (document: unknown) => string[];

export function loadComposeSchema(): ComposeCheck {
  // dclint's exports map does not list the schema file, so find it beside the package's package.json.
  const dir = dirname(createRequire(import.meta.url).resolve('dclint/package.json'));
  const schema = JSON.parse(readFileSync(join(dir, 'schemas', 'compose.schema.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  if (schema.title !== 'Compose Specification') throw new Error(`unexpected schema in dclint: ${String(schema.title)}`);
  // Its $schema names draft-07 by an https URL ajv does not know; ajv's default dialect is draft-07.
  delete schema.$schema;
  // The schema has "format" keywords ajv does not define (e.g. duration); they are annotations only.
  const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, validateFormats: false });
  const validate = ajv.compile(schema);
  return function checkCompose(document) {
    if (validate(document)) return [];
    return (validate.errors ?? []).map((e) => {
      const property = e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : '';
      return `${e.instancePath || '/'} ${e.message}${property}`;
    });
  };
}
