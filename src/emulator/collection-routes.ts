import type { HandlerEnv, RouteDefinition } from './handler.js';
import { listPage } from './pagination.js';
import { findRecord, patchDescriptionMetadata } from './record-base.js';
import type { CollectionName, CollectionRecords } from './records.js';

/** What differs between the top-level collections the emulator serves; the routes are the same for all. */
export interface CollectionDescription<C extends CollectionName> {
  readonly collection: C;
  /** `/reserved_addrs`: the list lives there, each record at `{path}/{id}`. */
  readonly path: string;
  /** Names a record in a 404, e.g. "reserved address". */
  readonly title: string;
  readonly render: (record: CollectionRecords[C], env: HandlerEnv) => Record<string, unknown>;
  /** Checks the POST body and stores the new record. */
  readonly create: (env: HandlerEnv, body: unknown) => CollectionRecords[C];
  /**
   * Checks the PATCH body, applies the fields of this kind and returns the
   * checked body, whose description and metadata are then applied: nothing
   * changes when any field is bad.
   */
  readonly update: (
    record: CollectionRecords[C],
    body: unknown,
    env: HandlerEnv,
  ) => Readonly<Record<string, unknown>>;
  /** Removes the record; by default only from its own collection. */
  readonly remove?: (env: HandlerEnv, record: CollectionRecords[C]) => void;
}

/** POST and GET on the collection, GET, PATCH and DELETE on one record. */
export function collectionRoutes<C extends CollectionName>(
  description: CollectionDescription<C>,
): RouteDefinition[] {
  const { collection, path, title, render, create, update } = description;
  const remove =
    description.remove ??
    ((env: HandlerEnv, record: CollectionRecords[C]) => env.store.delete(collection, record.id));
  const find = (env: HandlerEnv, id: string | undefined) => findRecord(env, collection, id, title);
  return [
    {
      method: 'POST',
      template: path,
      handler: (request, env) => ({ status: 201, body: render(create(env, request.body), env) }),
    },
    {
      method: 'GET',
      template: path,
      handler: (request, env) =>
        listPage(env.store.pages(collection), collection, (r) => render(r, env), request, env),
    },
    {
      method: 'GET',
      template: `${path}/{id}`,
      handler: (request, env) => ({ status: 200, body: render(find(env, request.params.id), env) }),
    },
    {
      method: 'PATCH',
      template: `${path}/{id}`,
      handler: (request, env) => {
        const record = find(env, request.params.id);
        patchDescriptionMetadata(record, update(record, request.body, env));
        env.store.changed();
        return { status: 200, body: render(record, env) };
      },
    },
    {
      method: 'DELETE',
      template: `${path}/{id}`,
      handler: (request, env) => {
        remove(env, find(env, request.params.id));
        return { status: 204 };
      },
    },
  ];
}
