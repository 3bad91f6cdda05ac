import type { ReadLiveContext } from './kind.js';
import type { KindName } from './kind-name.js';
import type { LiveObject } from './live-state.js';

/** Every object of a listed kind: all pages of `path`, each item normalized by the kind (and kept as `ctx.keep` says). */
export async function listLiveObjects(
  ctx: ReadLiveContext,
  list: { readonly kind: KindName; readonly path: string; readonly listKey: string },
  fromApi: (raw: unknown) => LiveObject,
): Promise<LiveObject[]> {
  const objects: LiveObject[] = [];
  const { signal, keep } = ctx;
  // Every page is read; a failure aborts `signal` (readLiveState), which stops the page asked for ahead.
  const options =
    signal === undefined
      ? { kind: list.kind, readAhead: true }
      : { kind: list.kind, readAhead: true, signal };
  for await (const page of ctx.api.paginate(list.path, list.listKey, options)) {
    for (const item of page.items) {
      const object = fromApi(item);
      objects.push(keep === undefined ? object : keep(object));
    }
  }
  return objects;
}
