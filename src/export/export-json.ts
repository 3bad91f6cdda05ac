import type { KindName } from '../kinds/kind-name.js';
import type { AccountExport } from './build-export.js';
import type { WriteExportResult } from './write-export.js';

/** Version of `export --format json`; keys are only added within a version. */
export const EXPORT_JSON_FORMAT_VERSION = 1;

export interface ExportJsonOptions {
  readonly owner: string;
  /** Kinds in registry order, as the manifest lists them. */
  readonly kinds: readonly KindName[];
  /** With `--out`: the directory as given and what was written there. */
  readonly out?: { readonly dir: string; readonly result: WriteExportResult };
  /** Warnings of the command itself (a module-only kind named without IDs), before the export's own. */
  readonly warnings?: readonly string[];
}

/**
 * `export --format json`: what the YAML export says, for tools. snake_case
 * keys, as all of edgesync's JSON (docs/export.md): `manifest` is the
 * manifest mapping the YAML holds (field names are the service's, already
 * snake_case; a user's metadata keeps its own keys), the secret variables
 * to set, what was left out and why, and with `--out` the files written,
 * removed and left alone.
 */
export function exportToJson(exported: AccountExport, options: ExportJsonOptions): Record<string, unknown> {
  const manifest: Record<string, unknown> = { version: 1 };
  for (const kind of options.kinds) {
    const ofKind = exported.entries.filter((entry) => entry.kind === kind);
    if (ofKind.length > 0)
      manifest[kind] = Object.fromEntries(ofKind.map((entry) => [entry.name, entry.value]));
  }
  const { unmanaged, otherOwners, duplicates } = exported.skipped;
  return {
    format_version: EXPORT_JSON_FORMAT_VERSION,
    owner: options.owner,
    manifest,
    entries: exported.entries.map((entry) => ({ kind: entry.kind, name: entry.name, id: entry.id })),
    secrets: exported.secrets.map((secret) => ({
      env: secret.env,
      kind: secret.kind,
      address: secret.address,
    })),
    skipped: { unmanaged, other_owners: otherOwners, duplicates },
    warnings: [...(options.warnings ?? []), ...exported.warnings],
    files:
      options.out === undefined
        ? null
        : {
            out: options.out.dir,
            written: [...options.out.result.written],
            removed: [...options.out.result.removed],
            kept: [...options.out.result.kept],
          },
  };
}
