import type { KindName } from '../kinds/kind-name.js';
import type { SourceLocation } from './source-location.js';

/**
 * One named entry of one kind, as the manifests declare it. Plain data: the
 * loader builds it, the planner reads it, nothing else writes it.
 */
export interface DesiredEntry {
  readonly kind: KindName;
  readonly name: string;
  /**
   * `id:` in the manifest. On managed kinds it adopts that existing resource
   * under this name; on `tcp_edges`/`tls_edges` it is the edge whose modules
   * are managed (required there).
   */
  readonly id?: string;
  /** `protect: true`: the plan fails rather than delete or replace this entry. */
  readonly protect: boolean;
  /**
   * The entry's fields in manifest shape (the API's snake_case names), minus
   * `id` and `protect`. `{ env }` / `{ file }` references are resolved to
   * strings and `ca_pem_file` has become `ca_pem`. Names of other managed
   * resources stay names; the planner resolves them to IDs. `metadata` is the
   * user's mapping, without the ownership marker. Defaults are not filled in:
   * the kind's `normalizeDesired` does that.
   */
  readonly spec: Readonly<Record<string, unknown>>;
  /** Where the entry's name is written. */
  readonly location: SourceLocation;
  /**
   * Where each field is written, keyed by JSON Pointer relative to the entry
   * (`/cidr`, `/routes/0/oidc/issuer`), so later messages can point at it.
   */
  readonly fieldLocations: Readonly<Record<string, SourceLocation>>;
}

export interface DesiredState {
  /** Sorted by kind (in the order of the registry it was loaded with), then name. */
  readonly entries: readonly DesiredEntry[];
  /** The manifest files read, as given on the command line joined with what directories held. */
  readonly files: readonly string[];
  /** The directories that held those files, as displayed: what `validate` says it read. */
  readonly directories?: readonly string[];
  /** What the walk skipped and why (`d/loop: symlink to a directory already read (d); skipped`). */
  readonly warnings?: readonly string[];
  /**
   * sha256 (hex) of the canonical JSON of every entry's kind, name, id,
   * protect and spec, each secret's value replaced by a stand-in: the hash
   * is shown (saved plans, `/status`), and a plain digest of a secret could
   * be tested against guesses offline. A saved plan records it; applying the
   * plan refuses when the manifests hash differently (a secret is compared
   * by its keyed digest in the actions that send it).
   */
  readonly hash: string;
}

/** Entries by kind, then name (no `kind.name` string per entry). */
export function entriesByKindAndName(
  entries: readonly DesiredEntry[],
): Map<KindName, Map<string, DesiredEntry>> {
  const byKind = new Map<KindName, Map<string, DesiredEntry>>();
  for (const entry of entries) {
    let byName = byKind.get(entry.kind);
    if (byName === undefined) {
      byName = new Map();
      byKind.set(entry.kind, byName);
    }
    byName.set(entry.name, entry);
  }
  return byKind;
}
