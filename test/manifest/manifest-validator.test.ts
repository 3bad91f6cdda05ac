import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { compileManifestSchema, readManifestSchema } from '../../src/manifest/manifest-schema.js';
import {
  GENERATED_VALIDATOR_FILE,
  manifestValidatorSource,
} from '../../src/manifest/manifest-validator-source.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every YAML document of the examples, valid and invalid, as data. */
function exampleDocuments(): { file: string; data: unknown }[] {
  const found: { file: string; data: unknown }[] = [];
  for (const dir of ['examples/manifests', 'examples/invalid']) {
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.ya?ml$/.test(entry.name)) continue;
      const file = join(entry.parentPath, entry.name);
      for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
        if (!('errors' in document) || document.errors.length > 0) continue;
        try {
          found.push({ file, data: document.toJS({ maxAliasCount: 100 }) });
        } catch {
          // An alias bomb among the invalid examples: the loader refuses it before the schema.
        }
      }
    }
  }
  return found;
}

describe('the manifest validator compiled ahead of time (start time: docs/performance.md)', () => {
  it('is the one `npm run schemas` generates from the committed schema (run it when this fails)', () => {
    const committed = readFileSync(join(ROOT, GENERATED_VALIDATOR_FILE), 'utf8');
    expect(committed).toBe(manifestValidatorSource(readManifestSchema()));
  });

  it('reports exactly what Ajv compiling the schema at run time reports', () => {
    const precompiled = compileManifestSchema();
    const compiled = compileManifestSchema(readManifestSchema());
    const documents = exampleDocuments();
    // The invalid examples must exercise the schema, or this comparison proves little.
    const failing = documents.filter(({ data }) => compiled(data).length > 0);
    expect(failing.length).toBeGreaterThan(5);
    for (const { file, data } of documents) {
      expect({ file, errors: precompiled(data) }).toEqual({ file, errors: compiled(data) });
    }
  });
});
