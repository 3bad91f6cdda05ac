/**
 * `npm run schemas` (after assemble-schemas): compiles the committed
 * schemas/manifest.schema.json ahead of time into
 * src/manifest/manifest-validator.generated.ts, so that no command pays for
 * loading Ajv and compiling the schema at start (docs/performance.md).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readManifestSchema } from '../src/manifest/manifest-schema.js';
import {
  GENERATED_VALIDATOR_FILE,
  manifestValidatorSource,
} from '../src/manifest/manifest-validator-source.js';

const root = join(import.meta.dirname, '..', '..');
const path = join(root, GENERATED_VALIDATOR_FILE);
const source = manifestValidatorSource(readManifestSchema());
let current = '';
try {
  current = readFileSync(path, 'utf8');
} catch {
  // first generation
}
if (current === source) {
  process.stdout.write(`${path} is up to date\n`);
} else {
  writeFileSync(path, source);
  process.stdout.write(`wrote ${path}\n`);
}
