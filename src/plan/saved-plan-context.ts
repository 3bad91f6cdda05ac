import type { FieldRule, Kind, NamedIds } from '../kinds/kind.js';
import type { LiveObject, LiveState } from '../kinds/live-state.js';
import type { Plan } from './plan.js';
import { METADATA_FIELD } from './spec-fields.js';

/**
 * What stood around a plan: for each resource its actions name that holds
 * other objects (an IP policy, FieldRule.memberOf), the ID and fingerprint
 * of each object in it that the owner does not manage, as the plan read
 * them. A plan that adds an allow rule to a policy is reviewed in the
 * context of the policy's other rules; one added by hand before the apply
 * changes what the reviewer approved without touching anything the plan
 * writes, so `apply --plan` reports it.
 */
export type PlanContext = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** One object around the plan that is not as it was when the plan was made. */
export interface ContextChange {
  /** The resource it is in: `ipp_…`. */
  readonly container: string;
  /** What that resource is, for people: `IP policy`. */
  readonly containerTitle: string;
  readonly kind: string;
  readonly id: string;
  readonly how: 'added' | 'removed' | 'changed';
  /** What it holds now, for people (its fields, secrets masked, its marker's owner); absent when removed. */
  readonly now?: string;
}

/** A field of a kind that places its objects in a resource (a rule's policy). */
interface MemberField {
  readonly kind: string;
  readonly rule: FieldRule;
  readonly named: NamedIds;
}

/** The context a plan was made in: the unmanaged members of every resource its actions or the objects they change name. */
export function planContext(plan: Plan, live: LiveState, kinds: readonly Kind[], owner: string): PlanContext {
  const fields = memberFields(kinds);
  if (fields.length === 0) return {};
  const prefixes = [...new Set(fields.map((field) => field.named.prefix))];
  const byId = new Map<string, LiveObject>();
  for (const objects of Object.values(live.objects))
    for (const object of objects ?? []) byId.set(object.id, object);
  const touched = new Set<string>();
  const collect = (value: unknown): void => collectIds(value, prefixes, touched);
  for (const action of plan.actions) {
    const request = action.request;
    collect(request.path.split('/'));
    collect(request.body);
  }
  for (const change of plan.changes) {
    const object = change.id === undefined ? undefined : byId.get(change.id);
    if (object !== undefined) collect(object.spec);
  }
  return membersOf(touched, live, fields, owner);
}

/** How the context recorded in a saved plan differs from the account now, container by container. */
export function contextChanges(
  saved: PlanContext,
  live: LiveState,
  kinds: readonly Kind[],
  owner: string,
): ContextChange[] {
  const fields = memberFields(kinds);
  const now = membersOf(new Set(Object.keys(saved)), live, fields, owner);
  const byId = new Map<string, LiveObject>();
  for (const objects of Object.values(live.objects))
    for (const object of objects ?? []) byId.set(object.id, object);
  const kindByName = new Map(kinds.map((kind) => [kind.name as string, kind]));
  const title = (container: string): string =>
    fields.find((field) => container.startsWith(field.named.prefix))?.named.title ?? 'resource';
  const changes: ContextChange[] = [];
  for (const container of Object.keys(saved).sort()) {
    const before = saved[container] ?? {};
    const after = now[container] ?? {};
    for (const id of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      const was = before[id];
      const is = after[id];
      if (was === is) continue;
      const object = byId.get(id);
      const kind = object?.kind ?? kindOfId(id, kinds);
      const how = was === undefined ? 'added' : is === undefined ? 'removed' : 'changed';
      changes.push({
        container,
        containerTitle: title(container),
        kind,
        id,
        how,
        ...(object === undefined || how === 'removed'
          ? {}
          : { now: described(object, kindByName.get(object.kind)) }),
      });
    }
  }
  return changes;
}

/** One line for people: `ip_policy_rules ipr_… added to IP policy ipp_…: cidr 10.9.0.0/16, action allow, not managed by edgesync`. */
export function contextChangeLine(change: ContextChange): string {
  const where =
    change.how === 'added'
      ? `added to ${change.containerTitle} ${change.container}`
      : change.how === 'removed'
        ? `removed from ${change.containerTitle} ${change.container}`
        : `changed in ${change.containerTitle} ${change.container}`;
  return `${change.kind} ${change.id} ${where}${change.now === undefined ? '' : `: now ${change.now}`}`;
}

function memberFields(kinds: readonly Kind[]): MemberField[] {
  return kinds.flatMap((kind) =>
    kind.fields.flatMap((rule) =>
      rule.memberOf === true && rule.names !== undefined
        ? [{ kind: kind.name, rule, named: rule.names }]
        : [],
    ),
  );
}

/** Every string in `value` (deeply) that is an ID of one of `prefixes`. */
function collectIds(value: unknown, prefixes: readonly string[], into: Set<string>): void {
  if (typeof value === 'string') {
    if (prefixes.some((prefix) => value.startsWith(prefix) && value.length > prefix.length)) into.add(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collectIds(item, prefixes, into);
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) collectIds(item, prefixes, into);
  }
}

/** The members of each of `containers` that `owner` does not manage, with their fingerprints. */
function membersOf(
  containers: ReadonlySet<string>,
  live: LiveState,
  fields: readonly MemberField[],
  owner: string,
): Record<string, Record<string, string>> {
  const members: Record<string, Record<string, string>> = {};
  for (const container of [...containers].sort()) members[container] = {};
  for (const field of fields) {
    for (const object of live.objects[field.kind] ?? []) {
      if (object.marker?.owner === owner) continue;
      const value = object.spec[field.rule.name];
      for (const container of Array.isArray(value) ? value : [value]) {
        const found = typeof container === 'string' ? members[container] : undefined;
        if (found !== undefined) found[object.id] = object.fingerprint;
      }
    }
  }
  return members;
}

function kindOfId(id: string, kinds: readonly Kind[]): string {
  return kinds.find((kind) => id.startsWith(kind.idPrefix))?.name ?? 'object';
}

/** What an object holds, for people: its own fields but secrets and metadata, then whose it is. */
function described(object: LiveObject, kind: Kind | undefined): string {
  const parts: string[] = [];
  for (const rule of kind?.fields ?? []) {
    if (rule.sensitive === true || rule.memberOf === true || rule.name === METADATA_FIELD) continue;
    const value = object.spec[rule.name];
    if (value === undefined || value === null || value === '') continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    parts.push(`${rule.name} ${text.length > 80 ? `${text.slice(0, 79)}…` : text}`);
  }
  parts.push(
    object.marker === null ? 'not managed by edgesync' : `managed by edgesync owner "${object.marker.owner}"`,
  );
  return parts.join(', ');
}
