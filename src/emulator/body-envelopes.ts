import { isRecord } from '../json-value.js';
import { UNKNOWN_FIELD } from './api-errors.js';
import type { FamilyRule } from './family-rule.js';
import { invalidField } from './field-rules.js';
import type { Handler, HandlerEnv, RouteDefinition } from './handler.js';
import { ServiceError } from './service-error.js';

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

const NOTHING_TO_CHANGE = 'an update needs at least one field to change';

/**
 * PATCH: IDs of the path allowed in the body; at least one field to change,
 * refused with the resource's own number (`emptyUpdate`) where the family
 * has one, and with none otherwise (the family documents none).
 */
export function unwrapPatchBody(
  body: unknown,
  params: Readonly<Record<string, string>>,
  emptyUpdate?: FamilyRule,
): unknown {
  if (!isRecord(body)) return body;
  const rest = checkPathIds(body, params);
  if (Object.keys(rest).length === 0) {
    throw emptyUpdate === undefined
      ? new ServiceError(400, 'invalid_body', NOTHING_TO_CHANGE)
      : emptyUpdate.refuse(NOTHING_TO_CHANGE);
  }
  return rest;
}

/** Module PUT: the bare module, or the envelope `{ [path IDs], module }`. */
export function unwrapModuleBody(body: unknown, params: Readonly<Record<string, string>>): unknown {
  if (!isRecord(body) || !Object.hasOwn(body, 'module')) return body;
  const { module, ...rest } = checkPathIds(body, params);
  const [stray] = Object.keys(rest).sort();
  if (stray !== undefined) {
    throw UNKNOWN_FIELD.refuseField(stray, 'unknown field beside module');
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

function withBody(
  handler: Handler,
  unwrap: (body: unknown, params: Readonly<Record<string, string>>, env: HandlerEnv) => unknown,
): Handler {
  return (request, env) => handler({ ...request, body: unwrap(request.body, request.params, env) }, env);
}

/** Every PATCH and PUT route, taking the family's bodies as well as the bare ones. */
export function acceptFamilyBodies(routes: readonly RouteDefinition[]): RouteDefinition[] {
  return routes.map((route) => {
    if (route.method === 'PATCH') {
      const unwrap = (body: unknown, params: Readonly<Record<string, string>>, env: HandlerEnv) =>
        withoutEmptyLists(unwrapPatchBody(body, params, route.emptyUpdate), env);
      return { ...route, handler: withBody(route.handler, unwrap) };
    }
    if (route.method === 'PUT') return { ...route, handler: withBody(route.handler, unwrapModuleBody) };
    return route;
  });
}
