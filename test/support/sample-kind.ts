import type { Kind } from '../../src/kinds/kind.js';
import { ID_PREFIXES } from '../../src/kinds/kind-name.js';
import { metadataKind } from '../../src/kinds/metadata-kind.js';
import { KINDS } from '../../src/kinds/registry.js';
import { SAMPLE_KIND_SCHEMA } from './sample-kind.schema.js';

/**
 * The proof that a kind is one module: endpoint configurations, a resource
 * of the service that edgesync does not manage, added in this file and its
 * schema part alone. Tests pass SAMPLE_REGISTRY wherever the built-in
 * registry is the default (loader, planner, live reads, export).
 */
export const sampleKind: Kind = metadataKind({
  name: 'endpoint_configurations',
  title: 'endpoint configuration',
  idPrefix: ID_PREFIXES.endpoint_configuration,
  path: '/endpoint_configurations',
  fields: [
    { name: 'description', onChange: 'update' },
    { name: 'metadata', onChange: 'update' },
  ],
  schema: SAMPLE_KIND_SCHEMA,
  fromApi: () => ({ spec: {} }),
});

/** The built-in registry plus the sample kind, last. */
export const SAMPLE_REGISTRY: readonly Kind[] = [...KINDS, sampleKind];
