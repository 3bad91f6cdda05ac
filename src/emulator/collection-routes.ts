import type { EmulatedCollection } from './emulated-collection.js';
import type { HandlerEnv, RouteDefinition } from './handler.js';
import { listPage } from './pagination.js';
import { findRecord, patchDescriptionMetadata } from './record-base.js';
import type { BaseRecord } from './records.js';
import { deleteRecord } from './references.js';

/** What differs between the top-level collections the emulator serves; the routes are the same for all. */
export interface CollectionDescription<R extends BaseRecord> {
  /** Its `path` (`/reserved_addrs`) holds the list, each record at `{path}/{id}`; its `title` names a record in a 404. */
  readonly collection: EmulatedCollection<R> & { readonly path: string };
  readonly render: (record: R, env: HandlerEnv) => Record<string, unknown>;
  /** Checks the POST body and stores the new record. */
  readonly create: (env: HandlerEnv, body: unknown) => R;
  /**
   * Checks the PATCH body, applies the fields of this kind and returns the
   * checked body, whose description and metadata are then applied: nothing
   * changes when any field is bad.
   */
  readonly update: (record: R, body: unknown, env: HandlerEnv) => Readonly<Record<string, unknown>>;
}

/**
 * POST and GET on the collection, GET, PATCH and DELETE on one record. A
 * DELETE follows the collection's references (deleteRecord).
 */
export function collectionRoutes<R extends BaseRecord>(
  description: CollectionDescription<R>,
): RouteDefinition[] {
  const { collection, render, create, update } = description;
  const { path } = collection;
  const find = (env: HandlerEnv, id: string | undefined) => findRecord(env, collection, id);
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
        listPage(
          env.store.pages(collection),
          { key: collection.name, idPrefix: collection.idPrefix },
          (r) => render(r, env),
          request,
          env,
        ),
    },
    {
      method: 'GET',
      template: `${path}/{id}`,
      handler: (request, env) => ({ status: 200, body: render(find(env, request.params.id), env) }),
    },
    {
      method: 'PATCH',
      template: `${path}/{id}`,
      ...(collection.refusals?.emptyUpdate === undefined
        ? {}
        : { emptyUpdate: collection.refusals.emptyUpdate }),
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
        deleteRecord(env, collection, find(env, request.params.id).id);
        return { status: 204 };
      },
    },
  ];
}
