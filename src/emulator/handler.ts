import type { EmulatorVariants } from './emulator-variants.js';
import type { FamilyRule } from './family-rule.js';
import type { ResourceIds } from './resource-id.js';
import type { EmulatorStore } from './store.js';

/** What a handler sees of a request: parsed, transport-free. */
export interface HandlerRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Parsed JSON body; `{}` when the request had none. */
  readonly body: unknown;
  /** The request path without the query string. */
  readonly path: string;
}

/** The account and settings a handler works against. */
export interface HandlerEnv {
  readonly store: EmulatorStore;
  /** Makes the IDs of new records (time-ordered). */
  readonly ids: ResourceIds;
  /** Absolute base URL of the server, no trailing slash; every `uri` starts with it. */
  readonly baseUrl: string;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** Largest page a list answers with (at most 100). */
  readonly pageSizeMax: number;
  /** How the undocumented behaviours are answered (EmulatorOptions.variants). */
  readonly variants: EmulatorVariants;
}

export interface HandlerResult {
  readonly status: number;
  /** Absent for 204. */
  readonly body?: unknown;
}

/**
 * Handlers are synchronous on purpose: the check-then-mutate of a request
 * cannot interleave with another request's.
 */
export type Handler = (request: HandlerRequest, env: HandlerEnv) => HandlerResult;

export const ROUTE_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];

export interface RouteDefinition {
  readonly method: RouteMethod;
  /** Path template with `{param}` segments: `/edges/https/{edge_id}/routes/{id}/oidc`. */
  readonly template: string;
  readonly handler: Handler;
  /**
   * A PATCH: the family's number for an update with no field to change,
   * where its resource has one (EmulatedCollection.refusals.emptyUpdate).
   */
  readonly emptyUpdate?: FamilyRule;
}
