import { KINDS } from '../../src/kinds/registry.js';
import type { LoadOptions } from '../../src/manifest/load-desired-state.js';
import { compileManifestSchema } from '../../src/manifest/manifest-schema.js';

/**
 * The registry and validator the commands load manifests with (the built-in
 * kinds, the schema compiled ahead of time): spread into a test's load options
 * so that the test loads as the commands do.
 */
export const BUILT_IN_LOAD: Pick<LoadOptions, 'kinds' | 'validator'> = {
  kinds: KINDS,
  validator: compileManifestSchema(),
};
