import type { EdgeApi } from '../api/edge-api.js';
import type { KindName } from './kind-name.js';
import type { LiveObject } from './live-state.js';

/** Every object of a listed kind: all pages of `path`, each item normalized by the kind. */
export async function listLiveObjects(
  api: EdgeApi,
  list: { readonly kind: KindName; readonly path: string; readonly listKey: string },
  fromApi: (raw: unknown) => LiveObject,
  signal: AbortSignal | undefined,
): Promise<LiveObject[]> {
  const objects: LiveObject[] = [];
  // Every page is read; a failure aborts `signal` (readLiveState), which stops the page asked for ahead.
  const options =
    signal === undefined
      ? { kind: list.kind, readAhead: true }
      : { kind: list.kind, readAhead: true, signal };
  for await (const page of api.paginate(list.path, list.listKey, options)) {
    for (const item of page.items) objects.push(fromApi(item));
  }
  return objects;
}
