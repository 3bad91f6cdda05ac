import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { assembleManifestSchema, MANIFEST_SCHEMA_ID, withPlanKindEnum } from '../../src/kinds/kind-schema.js';
import { KINDS } from '../../src/kinds/registry.js';

const readJson = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

function yamlFilesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.yaml'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('schemas assembled from the kinds', () => {
  const manifest = readJson('schemas/manifest.schema.json');
  const plan = readJson('schemas/plan.schema.json');

  it('checks in schemas/manifest.schema.json as the kinds assemble it (run npm run schemas)', () => {
    // Key order counts: the exporter writes keys in the schema's order.
    expect(JSON.stringify(manifest, null, 2)).toBe(JSON.stringify(assembleManifestSchema(KINDS), null, 2));
  });

  it("checks in schemas/plan.schema.json with the registry's kind enum (run npm run schemas)", () => {
    expect(JSON.stringify(plan, null, 2)).toBe(JSON.stringify(withPlanKindEnum(plan, KINDS), null, 2));
  });

  it.each([
    ['manifest', manifest],
    ['plan', plan],
  ])('compiles the %s schema in full strict mode, union types allowed', (_name, schema) => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true });

    expect(() => ajv.compile(schema)).not.toThrow();
  });

  it('refuses a kind part that defines a name another kind defines', () => {
    const [first] = KINDS;
    if (first === undefined) throw new Error('no kinds');

    expect(() => assembleManifestSchema([first, first])).toThrow(/already defined by another kind/);
  });

  it('has one published $id, the URL of the file on the main branch of the repository', () => {
    const repository = (readJson('package.json').repository ?? {}) as { url?: string };

    expect(manifest.$id).toBe(MANIFEST_SCHEMA_ID);
    expect(repository.url).toBe('git+https://github.com/edgesync/edgesync.git');
    expect(MANIFEST_SCHEMA_ID).toBe(
      'https://raw.githubusercontent.com/edgesync/edgesync/main/schemas/manifest.schema.json',
    );
  });

  it.each(yamlFilesBelow('examples').filter((file) => !file.endsWith('emulator-seed.yaml')))(
    '%s points its modeline at the published $id',
    (file) => {
      const [firstLine] = readFileSync(file, 'utf8').split('\n');

      expect(firstLine).toBe(`# yaml-language-server: $schema=${MANIFEST_SCHEMA_ID}`);
    },
  );
});
