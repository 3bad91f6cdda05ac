import type { HandlerEnv, HandlerRequest, RouteDefinition } from './handler.js';

/** How the endpoints of one module reach the record that holds it. */
export interface ModuleEndpoint<R> {
  /** Path template of the module, e.g. `/edges/tls/{id}/mutual_tls`. */
  readonly template: string;
  /** The record holding the module, or 404 not_found. */
  readonly find: (request: HandlerRequest, env: HandlerEnv) => R;
  /** Checks `body` and replaces the whole module with it (nothing changes when it is bad). */
  readonly set: (record: R, body: unknown, env: HandlerEnv) => void;
  /** The module as the service returns it, or 404 module_not_set when it is not configured. */
  readonly render: (record: R, env: HandlerEnv) => Record<string, unknown>;
  /** Removes the module from the record. */
  readonly clear: (record: R) => void;
}

/**
 * PUT, GET and DELETE of one module of an edge or route. DELETE of a module
 * that is not configured answers 404 module_not_set, like GET.
 */
export function moduleRoutes<R>(endpoint: ModuleEndpoint<R>): RouteDefinition[] {
  const { template, find, set, render, clear } = endpoint;
  return [
    {
      method: 'PUT',
      template,
      handler: (request, env) => {
        const record = find(request, env);
        set(record, request.body, env);
        env.store.changed();
        return { status: 200, body: render(record, env) };
      },
    },
    {
      method: 'GET',
      template,
      handler: (request, env) => ({ status: 200, body: render(find(request, env), env) }),
    },
    {
      method: 'DELETE',
      template,
      handler: (request, env) => {
        const record = find(request, env);
        render(record, env);
        clear(record);
        env.store.changed();
        return { status: 204 };
      },
    },
  ];
}
