import type { FieldRule, Kind } from '../kinds/kind.js';
import { visitSpec } from '../kinds/visit-spec.js';

/** Route modules live in `spec.routes[i]` (ModuleRule scope `route`). */
export const ROUTES_KEY = 'routes';
/** Holds the user's metadata and, once written, the ownership marker. */
export const METADATA_FIELD = 'metadata';

/** Calls `visit` with the top-level fields, each resource module and each route's modules of a spec. */
function forEachFieldGroup(
  kind: Kind,
  spec: Readonly<Record<string, unknown>>,
  visit: (rules: readonly FieldRule[], record: Record<string, unknown> | undefined) => void,
): void {
  visitSpec(kind, spec, ({ rules, record }) => visit(rules, record));
}

/** Every ID a live object names through reference fields, its modules and route modules. */
export function referencedIds(kind: Kind, spec: Readonly<Record<string, unknown>>): string[] {
  const ids: string[] = [];
  forEachFieldGroup(kind, spec, (rules, record) => {
    if (record === undefined) return;
    for (const rule of rules) {
      if (rule.references === undefined) continue;
      const value = record[rule.name];
      for (const item of Array.isArray(value) ? value : [value]) if (typeof item === 'string') ids.push(item);
    }
  });
  return ids;
}

/** Secret strings of a resolved spec: values of sensitive fields, in modules and route modules too. */
export function secretsOf(kind: Kind, spec: Readonly<Record<string, unknown>>): ReadonlySet<string> {
  if (!hasSensitiveFields(kind)) return NO_SECRETS;
  let secrets: Set<string> | undefined;
  forEachFieldGroup(kind, spec, (rules, record) => {
    for (const rule of rules) {
      const value = record?.[rule.name];
      if (rule.sensitive === true && typeof value === 'string' && value !== '') {
        secrets ??= new Set();
        secrets.add(value);
      }
    }
  });
  // One shared empty set: most entries have no secret, and a set each was garbage at 100,000 (issue 18).
  return secrets ?? NO_SECRETS;
}

const NO_SECRETS: ReadonlySet<string> = new Set();

const sensitiveKinds = new WeakMap<Kind, boolean>();

/** Whether any field of the kind or its modules is sensitive: no walk of a spec that can hold no secret. */
function hasSensitiveFields(kind: Kind): boolean {
  let sensitive = sensitiveKinds.get(kind);
  if (sensitive === undefined) {
    sensitive = [kind.fields, ...kind.modules.map((module) => module.fields)].some((rules) =>
      rules.some((rule) => rule.sensitive === true),
    );
    sensitiveKinds.set(kind, sensitive);
  }
  return sensitive;
}
