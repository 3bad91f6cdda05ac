import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorObject } from 'ajv';
import { validate as precompiledValidate } from './manifest-validator.generated.js';
import { loadAjv, MANIFEST_AJV_OPTIONS } from './manifest-validator-source.js';

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

/** Ajv's validate function, as both the compiled and the precompiled ones are. */
interface ValidateFunction {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

function validatorOf(validate: ValidateFunction): ManifestValidator {
  return (data) => {
    if (validate(data)) return [];
    const errors = [...(validate.errors ?? [])];
    // Ajv keeps the last errors (and through them the document's values) on the function until the next call.
    validate.errors = null;
    return errors;
  };
}

/**
 * The validator of the committed schema, the one source of truth that editors
 * use too. Without an argument it is the one compiled ahead of time
 * (manifest-validator.generated.ts, kept equal to the schema by a test), so
 * no command loads Ajv or compiles at start; a schema given (one assembled
 * from other kinds) is compiled here.
 */
export function compileManifestSchema(schema?: Record<string, unknown>): ManifestValidator {
  if (schema === undefined) return validatorOf(precompiledValidate as ValidateFunction);
  const Ajv = loadAjv();
  return validatorOf(new Ajv(MANIFEST_AJV_OPTIONS).compile(schema));
}
