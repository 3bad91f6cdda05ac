import { KINDS } from '../kinds/registry.js';
import type { LoadOptions } from '../manifest/load-desired-state.js';
import { compileManifestSchema } from '../manifest/manifest-schema.js';

/**
 * What the commands load manifests with: the built-in registry, which they
 * pass on as a value, and its schema's validator, compiled ahead of time
 * (compiling the schema at run time would cost each command its start).
 */
export function builtInLoad(): Pick<LoadOptions, 'kinds' | 'validator'> {
  return { kinds: KINDS, validator: compileManifestSchema() };
}
