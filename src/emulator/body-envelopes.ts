import { isRecord } from '../json-value.js';
import type { Handler, HandlerEnv, RouteDefinition } from './handler.js';
import { invalidField, ServiceError } from './service-error.js';

/**
 * The family's clients put the object's own IDs in write bodies: every
 * update body carries `id` (and a route's `edge_id`), and a module PUT may
 * come as `{ "id": EDGE, "module": {…} }` or `{ "edge_id": EDGE, "id":
 * ROUTE, "module": {…} }`. An ID in a body must name the object of the path;
 * the handler then sees the body without them.
 */
function checkPathIds(
  body: Readonly<Record<string, unknown>>,
  params: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...body };
  for (const [name, pathValue] of Object.entries(params)) {
    if (!Object.hasOwn(body, name)) continue;
    const given = body[name];
    if (given !== pathValue) {
      throw invalidField(
        name,
        `the body's ${name} ${JSON.stringify(given)} is not the path's ${name} "${pathValue}"`,
      );
    }
    delete rest[name];
  }
  return rest;
}

/** PATCH: IDs of the path allowed in the body; at least one field to change. */
export function unwrapPatchBody(body: unknown, params: Readonly<Record<string, string>>): unknown {
  if (!isRecord(body)) return body;
  const rest = checkPathIds(body, params);
  if (Object.keys(rest).length === 0) {
    throw new ServiceError(400, 'invalid_body', 'an update needs at least one field to change');
  }
  return rest;
}

/** Module PUT: the bare module, or the envelope `{ [path IDs], module }`. */
export function unwrapModuleBody(body: unknown, params: Readonly<Record<string, string>>): unknown {
  if (!isRecord(body) || !Object.hasOwn(body, 'module')) return body;
  const { module, ...rest } = checkPathIds(body, params);
  const [stray] = Object.keys(rest).sort();
  if (stray !== undefined) {
    throw new ServiceError(400, 'unknown_field', `${stray}: unknown field beside module`, stray);
  }
  return module;
}

/**
 * Variant `empty-list=ignored`: a PATCH's empty list reads as not sent, as a
 * service would that decodes into fields the family's clients leave out
 * when empty. The PATCH then answers 200 with the object unchanged.
 */
function withoutEmptyLists(body: unknown, env: HandlerEnv): unknown {
  if (env.variants['empty-list'] !== 'ignored' || !isRecord(body)) return body;
  return Object.fromEntries(
    Object.entries(body).filter(([, value]) => !(Array.isArray(value) && value.length === 0)),
  );
}

function unwrapPatch(body: unknown, params: Readonly<Record<string, string>>, env: HandlerEnv): unknown {
  return withoutEmptyLists(unwrapPatchBody(body, params), env);
}

function withBody(
  handler: Handler,
  unwrap: (body: unknown, params: Readonly<Record<string, string>>, env: HandlerEnv) => unknown,
): Handler {
  return (request, env) => handler({ ...request, body: unwrap(request.body, request.params, env) }, env);
}

/** Every PATCH and PUT route, taking the family's bodies as well as the bare ones. */
export function acceptFamilyBodies(routes: readonly RouteDefinition[]): RouteDefinition[] {
  return routes.map((route) => {
    if (route.method === 'PATCH') return { ...route, handler: withBody(route.handler, unwrapPatch) };
    if (route.method === 'PUT') return { ...route, handler: withBody(route.handler, unwrapModuleBody) };
    return route;
  });
}
