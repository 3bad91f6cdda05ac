import type { EdgeApi } from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import { readLiveState } from '../kinds/read-live-state.js';
import { readManifestSchema } from '../manifest/manifest-schema.js';
import { type AccountExport, type BuildExportOptions, buildExport } from './build-export.js';
import { ExportError } from './export-error.js';

export interface ExportAccountOptions extends Omit<BuildExportOptions, 'kinds' | 'schema'> {
  /** The registry in use, or the part of it to export. */
  readonly kinds: readonly Kind[];
  /**
   * IDs of the module-only edges to export, by kind: the API cannot list
   * TCP and TLS edges, so they are exported only when named.
   * @default {}
   */
  readonly idsByKind?: Readonly<Partial<Record<KindName, readonly string[]>>>;
  /** @default the committed schemas/manifest.schema.json */
  readonly schema?: Readonly<Record<string, unknown>>;
  readonly signal?: AbortSignal;
}

/**
 * Reads the account (every page of every listed kind, the modules of the
 * named edges) and turns it into manifest entries. A named edge the service
 * does not know is an error: the user asked for it by ID.
 */
export async function exportAccount(api: EdgeApi, options: ExportAccountOptions): Promise<AccountExport> {
  const { kinds } = options;
  const live = await readLiveState(api, {
    kinds,
    idsByKind: options.idsByKind ?? {},
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (live.missingIds.length > 0) {
    throw new ExportError(
      'export_edge_not_found',
      `no such edge in the account: ${[...live.missingIds].sort().join(', ')}`,
    );
  }
  return buildExport(live, { ...options, kinds, schema: options.schema ?? readManifestSchema() });
}
