import type { Kind } from '../../src/kinds/kind.js';
import { KINDS } from '../../src/kinds/registry.js';
import { sampleKind } from './sample-kind/index.js';

/**
 * The built-in registry with the sample kind registered last: the one line a
 * new kind adds to src/kinds/registry.ts. Tests pass it wherever the CLI
 * passes the built-in registry (loader, planner, live reads, export, emulator).
 */
export const SAMPLE_REGISTRY: readonly Kind[] = [...KINDS, sampleKind];
