import type { ApiRequest, EdgeApi } from '../api/edge-api.js';
import type { EmulatorPart } from '../emulator/emulated-collection.js';
import type { KindName } from './kind-name.js';
import type { KindProbe } from './kind-probe.js';
import type { NamedIds } from './named-ids.js';

export type { NamedIds } from './named-ids.js';

import type { KindSchema } from './kind-schema.js';
import type { LiveObject } from './live-state.js';

/** How the planner treats one field of a kind or of a module. */
export interface FieldRule {
  /** Key in the manifest-shaped spec. */
  readonly name: string;
  /** `replace`: the API cannot update it, so a change replaces the resource. */
  readonly onChange: 'update' | 'replace';
  /**
   * A secret: shown as `(sensitive)`, hashed in saved plans, never logged or
   * quoted. Its manifest value may be `{ env }` or `{ file }`, which the loader
   * resolves.
   */
  readonly sensitive?: boolean;
  /**
   * Not a secret (plans show it), but the wrong file may hold one (a PEM with
   * a private key): validation messages never quote its value.
   */
  readonly mayHoldSecrets?: boolean;
  /**
   * A list with set meaning: order and duplicates do not matter. The kind's
   * `normalizeDesired` and `fromApi` give it sorted and without duplicates
   * (`normalizeSetLike`), the form the planner compares it in.
   */
  readonly setLike?: boolean;
  /** Values are IDs of this kind or names of its managed entries (a value with the kind's ID prefix is an ID). */
  readonly references?: KindName;
  /**
   * Values are IDs of a resource that is no kind of the registry (an IP
   * policy): when it has a `path`, the plan reads each ID the manifests name
   * once and reports one the account lacks at the place it is written.
   */
  readonly names?: NamedIds;
  /**
   * With `names`: the object belongs to the resource the field names (a
   * rule to its IP policy), which holds other objects beside it, some of
   * them no entry's. A saved plan records the fingerprints of the others in
   * each such resource its actions name, and `apply --plan` reports those
   * that changed since: they decide, with what the plan writes, who gets in.
   */
  readonly memberOf?: boolean;
  /**
   * The create request cannot carry it (reserved_addrs' `endpoint_configuration_id`):
   * a create of an entry that sets it is followed by an update with this field.
   */
  readonly setAfterCreate?: boolean;
  /**
   * Few values, repeated across entries (a rule's policy ID, allow or deny):
   * the loader keeps one copy of each string (sharedCopy), not one per
   * entry, which was about 6 MB at 100,000 rules (docs/performance.md).
   */
  readonly recurs?: boolean;
}

/** A module: an optional sub-object written as a whole (one PUT, or the parent's PATCH). */
export interface ModuleRule {
  readonly name: string;
  /** `resource`: `spec[name]`; `route`: `spec.routes[i][name]` of an HTTPS edge. */
  readonly scope: 'resource' | 'route';
  readonly fields: readonly FieldRule[];
  /**
   * Optional: the module checks who connects (mutual TLS, OIDC), and one such
   * guard on an edge or its routes is enough. The planner removes or disables
   * a guard only after every guard put on the same edge (docs/plan.md,
   * ordering rule 6). Its value has `enabled`; null removes it.
   */
  readonly guard?: GuardRole;
  /**
   * Optional: the module names the IP policies an endpoint checks addresses
   * against (a TCP edge's IP restriction). A write that switches an endpoint
   * from one list to another goes between the narrowing and the widening
   * rule changes (ordering rule 5).
   */
  readonly namesIpPolicies?: boolean;
}

/** How a guard module's write changes who gets through (ModuleRule.guard). */
export interface GuardRole {
  /**
   * A write replaces what the guard accepts at once (mutual TLS swaps its
   * CAs), so it may let through a client it did not: it also waits for every
   * put of the edge's guards that do not (a route's OIDC), which then stop
   * every such client first. @default false
   */
  readonly swapsAtOnce?: boolean;
}

/**
 * A place an access rule can wait on while it moves (ordering rule 8 of
 * docs/plan.md): the rule is parked on `spot`, under a temporary deny rule on
 * `guard` around it. Both are values of the rule's unique-key field that
 * `AccessDecision.range` reads.
 */
export interface ParkingSpot {
  readonly guard: string;
  readonly spot: string;
}

/** How access rules of a kind decide, for the planner's access ordering (Kind.accessDecision). */
export interface AccessDecision {
  readonly field: string;
  readonly allow: string;
  readonly deny: string;
  /**
   * Optional, pure: the addresses a rule's spec covers. Two rules overlap
   * when their ranges share a family and intersect; only overlapping rules
   * are ordered against each other. Without it, or when it returns
   * undefined (a value that does not parse), a rule overlaps every other.
   */
  readonly range?: (spec: Readonly<Record<string, unknown>>) => AddressRange | undefined;
  /**
   * Optional: where a rule may be parked while it moves, in order of
   * preference; the planner takes the first whose guard overlaps nothing the
   * account or the plan holds. Without spots no rule is parked.
   */
  readonly parkingSpots?: readonly ParkingSpot[];
  /**
   * Optional: the ways to hold the addresses a rule moves to under temporary
   * deny rules, given the value of its unique-key field that `range` reads
   * (a CIDR), in order of preference: each a list of values of that field
   * whose ranges together cover it (for CIDRs: the CIDR itself, each CIDR
   * around it, smallest first, then its two halves). The planner takes the
   * first whose pieces no rule of the account or the plan holds, for a deny
   * that moves while an endpoint switches IP policy lists or trades ranges
   * with another deny (ordering rule 8). Without it such a move is refused.
   */
  readonly guardCovers?: (value: string) => readonly (readonly string[])[];
}

/**
 * A contiguous span of addresses (first and last inclusive) in one address
 * family; ranges of different families never overlap.
 */
export interface AddressRange {
  readonly family: string;
  readonly first: bigint;
  readonly last: bigint;
}

/** Where a module lives: the resource, and for route modules the route. */
export interface ModuleTarget {
  readonly id: string;
  readonly routeId?: string;
}

export interface ReadLiveContext {
  readonly api: EdgeApi;
  /** IDs the manifests name for module-only kinds (tcp_edges, tls_edges); other kinds list everything. */
  readonly ids: readonly string[];
  readonly signal?: AbortSignal;
  /**
   * The object to hold for each one a listing reads (ReadLiveStateOptions.keep).
   * @default the object read
   */
  readonly keep?: (object: LiveObject) => LiveObject;
}

/** Codes of the problems a kind's `checkEntry` and `resolveSources` report (all of them manifest error codes). */
export type EntryProblemCode =
  | 'invalid_cidr'
  | 'cidr_host_bits'
  | 'invalid_pem'
  | 'ca_pem_source'
  | 'min_version_with_upstream'
  | 'invalid_issuer'
  | 'route_selector'
  | 'invalid_hostport'
  | 'one_auth_route'
  | 'mutual_tls_with_upstream';

/** A problem in one manifest entry, found by its kind; the loader adds file, line and column. */
export interface EntryProblem {
  readonly code: EntryProblemCode;
  /** JSON Pointer from the entry (`/cidr`, `/routes/0/oidc/issuer`); '' for the entry itself. */
  readonly pointer: string;
  /** What was expected and what was found; never a secret's value. */
  readonly message: string;
  readonly cause?: unknown;
}

/** A problem of an entry against the live object it stands for (Kind.checkWithLive): a plan error. */
export interface LiveProblem extends Omit<EntryProblem, 'code'> {
  readonly code: EntryProblemCode | 'one_auth_module' | 'module_order';
}

/**
 * What a kind's `resolveSources` asks of the loader, which does the reading
 * (the kind never touches the disk or the environment). Each method reports
 * its own problem and answers undefined when the source cannot be read.
 */
export interface SourceResolver {
  /** A secret-capable value at `pointer`: a literal, `{ env: NAME }` or `{ file: PATH }`. */
  secret(pointer: string, value: unknown): Promise<string | undefined>;
  /** The text of a file named at `pointer`, relative to the entry's manifest. */
  file(pointer: string, path: string): Promise<string | undefined>;
  /** Reports a problem with a value once resolved. */
  problem(problem: EntryProblem): void;
  /**
   * False when `{ env }` and `{ file }` secret references are left unread
   * (`validate` without `--require-secrets`): `secret` then answers
   * UNRESOLVED_SECRET for them, which has no text to check.
   */
  readonly readsSecrets: boolean;
  /** The field at `from` now lives at `to` (`/ca_pem_file` became `/ca_pem`): its location moves with it. */
  moved(from: string, to: string): void;
}

/**
 * One resource kind: everything kind-specific lives behind this interface so
 * that the planner, executor and exporter iterate over the registry
 * (src/kinds/registry.ts) and never switch on a kind's name.
 */
export interface Kind {
  readonly name: KindName;
  /** Singular, for people: "IP policy rule". */
  readonly title: string;
  /** ID prefix of this kind's own resources (`ipr_`). */
  readonly idPrefix: string;
  /**
   * `metadata`: created, updated, deleted and owned through the metadata marker.
   * `modules-only`: existing resources named by `id`; only their modules are managed.
   */
  readonly ownership: 'metadata' | 'modules-only';
  /**
   * Optional: the API cannot list this kind's objects (a module-only edge), so
   * `export` reads only those named on its command line, each with this
   * repeatable flag (`--tcp-edge ID`). The CLI adds the flag for every kind
   * of the registry that declares one.
   */
  readonly exportIdFlag?: `--${string}`;
  /** Top-level fields the planner compares (modules excluded). */
  readonly fields: readonly FieldRule[];
  readonly modules: readonly ModuleRule[];
  /** This kind's part of the manifest schema (src/kinds/kind-schema.ts assembles them). */
  readonly schema: KindSchema;
  /**
   * Optional: IDs of resources that are no kind of the registry but that this
   * kind's entries name (the IP policy a rule belongs to, an HTTPS edge's
   * route): messages say what such an ID names, and no entry name may look like one.
   */
  readonly namedIds?: readonly NamedIds[];
  /**
   * Optional: how reference messages name one ID of this kind, with its
   * article. @default "a " or "an " + title + " ID"
   */
  readonly idTitle?: string;
  /**
   * Optional: fields whose values together identify at most one live object
   * (the service refuses a second rule for the same `cidr` and `ip_policy_id`).
   * The planner deletes the holder of a key before creating another with it.
   */
  readonly uniqueKey?: readonly string[];
  /**
   * Optional: list fields each item of which one object of the account holds
   * at most, across every kind with that field (a hostport is served by one
   * edge). The planner reports two entries, or an entry and an object it does
   * not own, claiming one item, and frees an item before another object takes it.
   */
  readonly uniqueItems?: readonly string[];
  /**
   * Optional: the date an object of this kind stops working by itself (a
   * CA's certificate expires), so that people are told ahead. `notAfter`
   * reads it from an entry's resolved spec, in milliseconds since the epoch
   * (undefined when the spec holds none, as for a PEM that does not parse:
   * the kind's own check reports that). `metric` names the daemon's gauge of
   * those dates, `edgesync_<metric>_expiration_timestamp_seconds`; `validate`
   * and `plan` warn with `subject` and `advice` (manifest/expiry-warnings.ts).
   */
  readonly expiry?: {
    readonly metric: string;
    /** What a warning calls the object that expires: "the CA". */
    readonly subject: string;
    /** What a warning asks people to do, and why: "replace its PEM before edges refuse client certificates". */
    readonly advice: string;
    notAfter(spec: Readonly<Record<string, unknown>>): number | undefined;
  };
  /**
   * Optional: for access rules, the field that decides allow or deny and its
   * two values. The planner creates deny rules before the allow rules they
   * overlap and deletes allow rules before the deny rules they overlap, so
   * access never widens mid-apply.
   */
  readonly accessDecision?: AccessDecision;

  /**
   * Optional, pure: the rules on one entry's values that the schema cannot
   * express. `value` is the entry as written, and has passed the schema.
   */
  checkEntry?(value: Readonly<Record<string, unknown>>): readonly EntryProblem[];
  /**
   * Optional, pure: the rules an entry must meet together with the live
   * object it stands for (the edge's other routes, a module the entry
   * leaves as it is), which `plan` checks before any request. `spec` is the
   * entry's normalized spec, references resolved; each problem is placed
   * as `checkEntry`'s are.
   */
  checkWithLive?(spec: Readonly<Record<string, unknown>>, object: LiveObject): readonly LiveProblem[];
  /**
   * Optional: turns the entry's own sources into spec values, in place
   * (`ca_pem_file` into `ca_pem`), reading through `resolver`. Sensitive
   * fields are resolved for every kind by the loader; this is for the rest.
   */
  resolveSources?(spec: Record<string, unknown>, resolver: SourceResolver): Promise<void>;

  /** Reads this kind's live objects: the paginated list, or module GETs for `ctx.ids`. */
  readLive(ctx: ReadLiveContext): Promise<readonly LiveObject[]>;
  /** Normalizes one object as the API returns it (list item or GET body). */
  fromApi(raw: unknown): LiveObject;
  /**
   * Makes a desired spec comparable with `LiveObject.spec`: defaults explicit,
   * CIDRs canonical, PEM newline, set-like lists sorted. References stay as
   * given (names or IDs).
   */
  normalizeDesired(spec: Readonly<Record<string, unknown>>): Record<string, unknown>;

  /** POST for a new resource; `spec` is normalized with references resolved, `metadata` the final string. */
  createRequest(spec: Readonly<Record<string, unknown>>, metadata: string): ApiRequest;
  /**
   * PATCH with only `changed` (manifest-shaped keys, references resolved;
   * `metadata` as the final string). A field cleared by a request of its own
   * (`clearRequest`) is left out when `changed` clears it.
   */
  updateRequest(id: string, changed: Readonly<Record<string, unknown>>): ApiRequest;
  /**
   * Optional: the request of its own that clears `field` of object `id`,
   * for a field no PATCH can clear (the family reads a PATCH's null as "not
   * sent"): a reserved address detaches its endpoint configuration with a
   * DELETE. Undefined for a field a PATCH clears.
   */
  clearRequest?(id: string, field: string): ApiRequest | undefined;
  deleteRequest(id: string): ApiRequest;
  /** PUT (or the parent's PATCH) that sets a module to `value`, or the DELETE that removes it when `value` is null. */
  moduleRequest(
    target: ModuleTarget,
    module: string,
    value: Readonly<Record<string, unknown>> | null,
  ): ApiRequest;
  /** GET that reads a module back (the executor's check after a PUT whose outcome is unknown). */
  moduleReadRequest(target: ModuleTarget, module: string): ApiRequest;

  /** Optional: what `edgesync doctor` checks of this kind against the live service (KindProbe). */
  readonly probe?: KindProbe;

  /**
   * Optional: loads this kind's part of the emulator (its collections, their
   * endpoints and seed format, src/kinds/<kind>/emulator*.ts). Loaded only
   * when an emulator starts, so that validating or planning never loads it;
   * a kind without one is not served by the emulator.
   */
  emulator?(): Promise<EmulatorPart>;
}
