import type { ApiRequest } from '../../api/edge-api.js';
import { isRecord } from '../../json-value.js';
import { expectId, expectObject, optionalString } from '../api-json.js';
import { normalizeDesiredFields } from '../desired-common-fields.js';
import {
  MUTUAL_TLS_RULE,
  mutualTlsFromApi,
  mutualTlsMutateBody,
  normalizeMutualTlsDesired,
} from '../edge-modules/mutual-tls-module.js';
import {
  normalizeTlsTermination,
  TLS_TERMINATION_FIELDS,
  tlsTerminationFromApi,
  tlsTerminationMutateBody,
} from '../edge-modules/tls-termination-module.js';
import type { EntryProblem, Kind, ModuleTarget } from '../kind.js';
import { KindError } from '../kind-error.js';
import { listLiveObjects } from '../list-live-objects.js';
import { buildLiveObject, withoutUndefined } from '../live-object.js';
import type { LiveObject } from '../live-state.js';
import { patchBody } from '../patch-body.js';
import { normalizeSetLike } from '../set-like.js';
import { checkAuthWithLive, checkOneAuthRoute } from './auth-routes.js';
import { hostportProblem } from './hostport.js';
import { issuerProblem, normalizeOidc, OIDC_FIELDS, oidcFromApi, oidcPutBody } from './oidc-module.js';
import { readOnlyRouteModule } from './read-only-route-module.js';
import { HTTPS_EDGES_SCHEMA } from './schema.js';

const NAME = 'https_edges';
const PATH = '/edges/https';
const EDGE_MODULES = ['mutual_tls', 'tls_termination'] as const;
const ROUTE_MODULE = 'oidc';
/** Route keys that are not read-only route modules. */
const ROUTE_OWN_KEYS = new Set([
  'id',
  'edge_id',
  'uri',
  'created_at',
  'match_type',
  'match',
  'description',
  'metadata',
]);

/**
 * A route as read: its selector, the writable `oidc` module (null when unset)
 * and every other module that is set, as the service returned it but for
 * its secrets (read-only: the spec has no write endpoint for them).
 */
function routeFromApi(raw: unknown): Record<string, unknown> {
  const route = expectObject(raw, NAME, 'HTTPS edge route');
  const readOnlyModules: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(route)) {
    if (!ROUTE_OWN_KEYS.has(key) && key !== ROUTE_MODULE && value !== null && value !== undefined) {
      readOnlyModules[key] = readOnlyRouteModule(key, value);
    }
  }
  return withoutUndefined({
    id: expectId(route, NAME),
    match_type: route.match_type,
    match: route.match,
    description: optionalString(route, 'description'),
    oidc: oidcFromApi(route.oidc),
    ...readOnlyModules,
  });
}

function fromApi(raw: unknown): LiveObject {
  const object = expectObject(raw, NAME, 'HTTPS edge');
  const routes = Array.isArray(object.routes) ? object.routes : [];
  return buildLiveObject({
    kind: NAME,
    id: expectId(object, NAME),
    raw,
    createdAt: object.created_at,
    metadata: object.metadata,
    spec: {
      description: optionalString(object, 'description'),
      hostports: normalizeSetLike(object.hostports ?? []),
      mutual_tls: mutualTlsFromApi(object.mutual_tls),
      tls_termination: tlsTerminationFromApi(object.tls_termination, 'https-edge'),
      routes: routes.map(routeFromApi),
    },
  });
}

function normalizeDesiredRoute(route: unknown): unknown {
  if (!isRecord(route) || !(ROUTE_MODULE in route)) return route;
  return { ...route, oidc: normalizeOidc(route.oidc) };
}

function normalizeDesired(spec: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return normalizeDesiredFields(spec, {
    hostports: normalizeSetLike(spec.hostports ?? []),
    mutual_tls: normalizeMutualTlsDesired(spec.mutual_tls),
    tls_termination: normalizeTlsTermination(spec.tls_termination, 'https-edge'),
    routes: Array.isArray(spec.routes) ? spec.routes.map(normalizeDesiredRoute) : spec.routes,
  });
}

/** Module values in the edge's create/PATCH body (EndpointMutualTLSMutate, EndpointTLSTerminationAtEdge). */
function edgeModuleBodies(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const bodies: Record<string, unknown> = {};
  const mutualTls = values.mutual_tls;
  const tlsTermination = values.tls_termination;
  if (isRecord(mutualTls)) bodies.mutual_tls = mutualTlsMutateBody(mutualTls);
  if (isRecord(tlsTermination))
    bodies.tls_termination = tlsTerminationMutateBody(tlsTermination, 'https-edge');
  return bodies;
}

function routeIdOf(target: ModuleTarget, module: string): string {
  if (target.routeId !== undefined) return target.routeId;
  throw new KindError('unknown_module', `https_edges module "${module}" needs a route ID`, {
    kind: NAME,
    id: target.id,
  });
}

function isEdgeModule(module: string): boolean {
  return (EDGE_MODULES as readonly string[]).includes(module);
}

function moduleRequest(
  target: ModuleTarget,
  module: string,
  value: Readonly<Record<string, unknown>> | null,
): ApiRequest {
  if (isEdgeModule(module)) {
    // The edge's PATCH replaces the module it names; only removal has its own endpoint.
    if (value === null) return { method: 'DELETE', path: `${PATH}/${target.id}/${module}` };
    return { method: 'PATCH', path: `${PATH}/${target.id}`, body: edgeModuleBodies({ [module]: value }) };
  }
  if (module === ROUTE_MODULE) {
    const path = `${PATH}/${target.id}/routes/${routeIdOf(target, module)}/${module}`;
    return value === null ? { method: 'DELETE', path } : { method: 'PUT', path, body: oidcPutBody(value) };
  }
  throw new KindError('unknown_module', `https_edges has no module "${module}"`, {
    kind: NAME,
    id: target.id,
  });
}

function moduleReadRequest(target: ModuleTarget, module: string): ApiRequest {
  if (isEdgeModule(module)) return { method: 'GET', path: `${PATH}/${target.id}/${module}` };
  if (module === ROUTE_MODULE) {
    return { method: 'GET', path: `${PATH}/${target.id}/routes/${routeIdOf(target, module)}/${module}` };
  }
  throw new KindError('unknown_module', `https_edges has no module "${module}"`, {
    kind: NAME,
    id: target.id,
  });
}

/** A route is selected by id, or by match_type and match; its OIDC issuer is a provider's URL. */
function checkRoute(pointer: string, route: Record<string, unknown>): EntryProblem[] {
  const problems: EntryProblem[] = [];
  const hasId = route.id !== undefined;
  const hasType = route.match_type !== undefined;
  const hasMatch = route.match !== undefined;
  const selector = (message: string): EntryProblem => ({ code: 'route_selector', pointer, message });
  if (hasId && (hasType || hasMatch)) {
    problems.push(selector('select the route by id or by match_type and match, not both'));
  } else if (!hasId && !hasType && !hasMatch) {
    problems.push(selector('select the route by id, or by match_type and match'));
  } else if (!hasId && hasType !== hasMatch) {
    problems.push(selector(`match_type and match go together (missing ${hasType ? 'match' : 'match_type'})`));
  }
  const oidc = route.oidc as Record<string, unknown> | null | undefined;
  if (typeof oidc?.issuer === 'string') {
    const message = issuerProblem(oidc.issuer);
    if (message !== undefined)
      problems.push({ code: 'invalid_issuer', pointer: `${pointer}/oidc/issuer`, message });
  }
  return problems;
}

function checkEntry(value: Readonly<Record<string, unknown>>): EntryProblem[] {
  const problems: EntryProblem[] = [];
  (Array.isArray(value.hostports) ? value.hostports : []).forEach((hostport: unknown, index) => {
    const message = typeof hostport === 'string' ? hostportProblem(hostport) : undefined;
    if (message !== undefined)
      problems.push({ code: 'invalid_hostport', pointer: `/hostports/${index}`, message });
  });
  (Array.isArray(value.routes) ? value.routes : []).forEach((route: unknown, index) => {
    // A route that is not a mapping is the schema's to report; the other routes still have their rules run.
    if (isRecord(route)) problems.push(...checkRoute(`/routes/${index}`, route));
  });
  problems.push(...checkOneAuthRoute(value));
  return problems;
}

export const httpsEdges: Kind = {
  name: NAME,
  title: 'HTTPS edge',
  idPrefix: 'edghts_',
  namedIds: [{ prefix: 'edghtsrt_', title: 'HTTPS edge route' }],
  ownership: 'metadata',
  fields: [
    { name: 'description', onChange: 'update' },
    { name: 'metadata', onChange: 'update' },
    { name: 'hostports', onChange: 'update', setLike: true },
  ],
  uniqueItems: ['hostports'],
  modules: [
    MUTUAL_TLS_RULE,
    { name: 'tls_termination', scope: 'resource', fields: TLS_TERMINATION_FIELDS['https-edge'] },
    // A route's OIDC stops every client without a login: a guard, and one that never lets a new one in at once.
    { name: ROUTE_MODULE, scope: 'route', fields: OIDC_FIELDS, guard: {} },
  ],
  schema: HTTPS_EDGES_SCHEMA,
  checkEntry,
  checkWithLive: checkAuthWithLive,
  readLive: (ctx) => listLiveObjects(ctx, { kind: NAME, path: PATH, listKey: NAME }, fromApi),
  fromApi,
  normalizeDesired,
  createRequest: (spec, metadata): ApiRequest => ({
    method: 'POST',
    path: PATH,
    body: withoutUndefined({
      description: spec.description,
      metadata,
      hostports: spec.hostports ?? [],
      ...edgeModuleBodies(spec),
    }),
  }),
  updateRequest: (id, changed): ApiRequest => ({
    method: 'PATCH',
    path: `${PATH}/${id}`,
    body: {
      ...patchBody(changed, ['description', 'metadata', 'hostports'], { hostports: [] }),
      ...edgeModuleBodies(changed),
    },
  }),
  deleteRequest: (id): ApiRequest => ({ method: 'DELETE', path: `${PATH}/${id}` }),
  moduleRequest,
  moduleReadRequest,
  probe: {
    list: { path: PATH, key: NAME },
    object: {
      // A name under a domain reserved for examples: it serves nothing.
      spec: (word) => ({
        description: `edgesync doctor probe ${word}`,
        hostports: [`edgesync-doctor-${word}.example.com:443`],
      }),
      update: (word) => ({ description: `edgesync doctor probe ${word} (updated)` }),
      emptiedList: 'hostports',
      unsetModules: [...EDGE_MODULES],
    },
  },
  emulator: async () => (await import('./emulator.js')).HTTPS_EDGES_PART,
};
