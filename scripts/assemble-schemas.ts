/**
 * `npm run schemas`: writes schemas/manifest.schema.json from the kinds'
 * schema parts, and the kind enum of schemas/plan.schema.json from the
 * registry. The output is checked in (editors and the published `$id` read
 * it); test/kinds/schema-assembly.test.ts fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assembleManifestSchema, withPlanKindEnum } from '../src/kinds/kind-schema.js';
import { KINDS } from '../src/kinds/registry.js';
import { manifestSchemaPath } from '../src/manifest/manifest-schema.js';

/** Writes `schema` unless the file already holds it (key order included), so formatting by hand survives. */
function writeIfChanged(path: string, schema: Record<string, unknown>): void {
  const current = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (JSON.stringify(current) === JSON.stringify(schema)) {
    process.stdout.write(`${path} is up to date\n`);
    return;
  }
  writeFileSync(path, `${JSON.stringify(schema, null, 2)}\n`);
  process.stdout.write(`wrote ${path}\n`);
}

const manifestPath = manifestSchemaPath();
const planPath = join(manifestPath, '..', 'plan.schema.json');
const plan = JSON.parse(readFileSync(planPath, 'utf8')) as Record<string, unknown>;
writeIfChanged(manifestPath, assembleManifestSchema(KINDS));
writeIfChanged(planPath, withPlanKindEnum(plan, KINDS));
