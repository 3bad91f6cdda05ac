import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/** Where the schema lives relative to the package root; the same code runs from `src/` and from `dist/src/`. */
const SCHEMA_PATH = join('schemas', 'manifest.schema.json');

/** Finds `schemas/manifest.schema.json` by walking up from this module, as src/version.ts finds package.json. */
export function manifestSchemaPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth += 1) {
    const candidate = join(dir, SCHEMA_PATH);
    try {
      readFileSync(candidate, { flag: 'r' });
      return candidate;
    } catch {
      dir = dirname(dir);
    }
  }
  throw new Error(`cannot find ${SCHEMA_PATH} above ${fileURLToPath(import.meta.url)}`);
}

export function readManifestSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(manifestSchemaPath(), 'utf8')) as Record<string, unknown>;
}

export type ManifestValidator = (data: unknown) => readonly ErrorObject[];

/**
 * Compiles the committed schema: the one source of truth that editors use
 * too. `verbose` keeps the failing data and parent schema on each error so
 * messages can say what was expected and what was found.
 */
export function compileManifestSchema(
  schema: Record<string, unknown> = readManifestSchema(),
): ManifestValidator {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    // Full strict mode; union types (`["object", "null"]`) are allowed explicitly, as Ajv's strict mode asks.
    strict: true,
    allowUnionTypes: true,
  });
  const validate: ValidateFunction = ajv.compile(schema);
  return (data) => (validate(data) ? [] : [...(validate.errors ?? [])]);
}
