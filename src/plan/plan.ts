import type { ApiRequest } from '../api/edge-api.js';
import type { KindName } from '../kinds/kind-name.js';
import type { SourceLocation } from '../manifest/source-location.js';
import type { PlanRefusal, PlanSafety } from './safety-policy.js';

export const OPERATIONS = [
  'create',
  'update',
  'replace',
  'delete',
  'adopt',
  'put-module',
  'delete-module',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** A field-level difference; `path` is dotted from the resource (`cidr`, `mutual_tls.certificate_authorities`, `routes[edghtsrt_…].oidc`). */
export interface FieldChange {
  readonly path: string;
  /** Absent when the field did not exist before. Secrets never appear here: see `sensitive`. */
  readonly before?: unknown;
  readonly after?: unknown;
  /** True when either side is a secret: renderers show `(sensitive)`, saved plans hold a hash. */
  readonly sensitive: boolean;
  /** This field alone forces a replace. */
  readonly forcesReplace: boolean;
}

/**
 * What happens to one object (or one module of one object), for people:
 * renderers show these. One change may need several actions (a replace is a
 * create and a delete with other actions between them).
 */
export interface ResourceChange {
  /** Stable and unique in the plan: `certificate_authorities.corp-root`, `https_edges.web.routes[edghtsrt_…].oidc`. */
  readonly address: string;
  readonly op: Operation;
  readonly kind: KindName;
  readonly name: string;
  /** The live object's ID; absent for creates. */
  readonly id?: string;
  readonly module?: string;
  readonly routeId?: string;
  readonly changes: readonly FieldChange[];
  /** Why, in words: "not in the live account", "cidr changed", "owned by edgesync but no longer in the manifests". */
  readonly reason: string;
  /** The manifest place that caused it; absent for prunes. */
  readonly source?: SourceLocation;
  /** Keys of the actions that carry this change out. */
  readonly actionKeys: readonly string[];
}

/** One API request of the plan, with the actions that must be done before it. */
export interface Action {
  /** Stable and unique in the plan: `create:certificate_authorities.corp-root`. */
  readonly key: string;
  readonly op: Operation;
  readonly kind: KindName;
  readonly name: string;
  /** Address of the ResourceChange this action belongs to. */
  readonly change: string;
  /** Body values may hold PendingId objects, and the path pending segments (pending-id.ts). */
  readonly request: ApiRequest;
  /** JSON Pointers into `request.body` whose values are secrets. */
  readonly sensitivePaths: readonly string[];
  /** For creates: the ownership marker, so an outcome-unknown POST can be looked up before it is sent again. */
  readonly marker?: { readonly owner: string; readonly name: string } | undefined;
  readonly dependsOn: readonly string[];
  readonly source?: SourceLocation | undefined;
}

/** A problem only the live account reveals, pointed at the manifest. */
export interface PlanError {
  readonly code: string;
  readonly message: string;
  readonly source?: SourceLocation;
  /**
   * The one entry (or owned object, by its marker's name) the problem stops,
   * when it stops nothing else: the account lacks what it names or holds
   * what it needs. Absent when the manifests contradict themselves or the
   * plan as a whole cannot be made. The daemon skips such an entry and
   * applies the rest; plan and apply report it like any other error.
   */
  readonly entry?: EntryAddress;
}

/** An entry of the manifests (or an owned object, by its marker's name). */
export interface EntryAddress {
  readonly kind: KindName;
  readonly name: string;
}

export type PlanSummary = Readonly<Record<Operation, number>> & {
  readonly unchanged: number;
  /** Live objects without our marker: counted, never touched. */
  readonly unmanaged: number;
};

export interface Plan {
  readonly formatVersion: 1;
  readonly owner: string;
  readonly changes: readonly ResourceChange[];
  /** Topologically valid: every dependsOn names an earlier action. */
  readonly actions: readonly Action[];
  readonly summary: PlanSummary;
  /** Non-empty: the plan cannot be applied (exit 1). */
  readonly errors: readonly PlanError[];
  /** Things a person should know that do not stop the plan (e.g. nothing pruned from an incomplete read). */
  readonly warnings?: readonly PlanError[];
  /**
   * Set when the safety policy (safety-policy.ts) refuses the plan: exit 4,
   * and the daemon applies nothing. Appliers read only this.
   */
  readonly refusal?: PlanRefusal;
  /** What the refusal was decided from; a saved plan records it for its readers (`apply --plan` plans again). */
  readonly safety?: PlanSafety;
  readonly desiredHash: string;
  /** Fingerprint of every live object the plan read, by ID. */
  readonly fingerprints: Readonly<Record<string, string>>;
}
