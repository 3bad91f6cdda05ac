import type { HandlerEnv, HandlerRequest, HandlerResult, RouteDefinition } from './handler.js';
import { ServiceError } from './service-error.js';

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

function isModuleNotSet(error: unknown): boolean {
  return error instanceof ServiceError && error.errorCode === 'module_not_set';
}

/**
 * What GET or DELETE of a module that is not set answers when the family's
 * undocumented answer is taken to be a success (variant `unset-module=null-ok`):
 * GET 200 with null, DELETE 204. Otherwise the 404 module_not_set stands.
 */
function unsetModuleAnswer(error: unknown, env: HandlerEnv, success: HandlerResult): HandlerResult {
  if (isModuleNotSet(error) && env.variants['unset-module'] === 'null-ok') return success;
  throw error;
}

/**
 * PUT, GET and DELETE of one module of an edge or route. GET or DELETE of a
 * module that is not configured answers 404 module_not_set, or as the
 * `unset-module` variant says (src/emulator/emulator-variants.ts).
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
      handler: (request, env) => {
        const record = find(request, env);
        try {
          return { status: 200, body: render(record, env) };
        } catch (error) {
          return unsetModuleAnswer(error, env, { status: 200, body: null });
        }
      },
    },
    {
      method: 'DELETE',
      template,
      handler: (request, env) => {
        const record = find(request, env);
        try {
          render(record, env);
        } catch (error) {
          return unsetModuleAnswer(error, env, { status: 204 });
        }
        clear(record);
        env.store.changed();
        return { status: 204 };
      },
    },
  ];
}
