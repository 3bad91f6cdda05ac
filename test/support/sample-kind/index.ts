import type { Kind } from '../../../src/kinds/kind.js';
import { metadataKind } from '../../../src/kinds/metadata-kind.js';
import { SAMPLE_KIND_SCHEMA } from './schema.js';

/**
 * The sample kind: reserved domains, a resource of the service family that
 * the spec leaves out, added as a kind folder of its own (this file, its
 * schema part and its emulator part) and registered by one line, as
 * docs/architecture.md's checklist says. Nothing under src/ names it.
 */
export const sampleKind: Kind = metadataKind({
  name: 'reserved_domains',
  title: 'reserved domain',
  idPrefix: 'rd_',
  path: '/reserved_domains',
  fields: [
    { name: 'description', onChange: 'update' },
    { name: 'metadata', onChange: 'update' },
    { name: 'domain', onChange: 'replace' },
  ],
  schema: SAMPLE_KIND_SCHEMA,
  // The service holds one reserved domain per hostname.
  uniqueKey: ['domain'],
  fromApi: (object) => ({ spec: { domain: object.domain } }),
  emulator: async () => (await import('./emulator.js')).SAMPLE_KIND_EMULATOR,
});
