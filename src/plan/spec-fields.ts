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

/**
 * Secret strings of a resolved spec: values of sensitive fields, in modules
 * and route modules too. `hasSensitiveFields`: whether the kind has any
 * (KindRules), so that a spec that can hold none is not walked.
 */
export function secretsOf(
  kind: Kind,
  spec: Readonly<Record<string, unknown>>,
  hasSensitiveFields: boolean,
): ReadonlySet<string> {
  if (!hasSensitiveFields) return NO_SECRETS;
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
  // One shared empty set: most entries have no secret, and a set each was garbage at 100,000.
  return secrets ?? NO_SECRETS;
}

/** The secrets of a spec that holds none: shared, never written to. */
export const NO_SECRETS: ReadonlySet<string> = new Set();
