import { pointerTokens } from '../json-pointer.js';
import type { KindName } from '../kinds/kind-name.js';
import { dottedPath } from './field-path.js';
import type { ParsedManifest } from './parsed-manifest.js';
import { locationOf } from './schema-errors.js';
import type { SourceLocation } from './source-location.js';

/** One entry as a manifest file holds it, before references are resolved. */
export interface RawEntry {
  readonly kind: KindName;
  readonly name: string;
  readonly manifest: ParsedManifest;
  /** JSON Pointer of the entry in its file (`/ip_policy_rules/office-vpn`). */
  readonly pointer: string;
  /** The entry's mapping; only trusted to match the schema when `valid` (`{}` when it is not a mapping). */
  readonly value: Record<string, unknown>;
  /** False when the schema found a problem inside the entry: it is not built, and only its values' rules still run. */
  readonly valid: boolean;
  /** Where in the entry the schema found its problems (JSON Pointers from the entry, `''` for the entry itself); empty when valid. */
  readonly invalidAt: readonly string[];
}

/** Where a field of the entry is written; `relative` is a JSON Pointer from the entry (`/cidr`). */
export function entryLocation(entry: RawEntry, relative = ''): SourceLocation {
  return locationOf(entry.manifest, entry.pointer + relative);
}

/** The dotted path of a field of the entry, for messages. */
export function entryPath(entry: RawEntry, relative = ''): string {
  // Every entry's own path is taken (for the duplicate-name check): in a mapping of entries it is `kind.name`.
  if (relative === '') {
    const collection = (entry.manifest.data as Record<string, unknown>)[entry.kind];
    if (collection !== null && typeof collection === 'object' && !Array.isArray(collection)) {
      return `${entry.kind}.${entry.name}`;
    }
  }
  return dottedPath(entry.manifest.data, pointerTokens(entry.pointer + relative));
}
