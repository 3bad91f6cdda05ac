import { asRecord } from '../json-value.js';
import type { FieldRule, Kind } from './kind.js';

/** Route modules live in `spec.routes[i]` (ModuleRule scope `route`). */
export const ROUTES_KEY = 'routes';

/** One group of fields of a spec: the top level, a resource module, or one route's module. */
export interface FieldGroup {
  readonly rules: readonly FieldRule[];
  /** The record holding the fields; undefined when the module is unset (null or absent) or not a mapping. */
  readonly record: Record<string, unknown> | undefined;
  /** JSON Pointer of `record` in the spec: '', '/mutual_tls', '/routes/0/oidc'. */
  readonly pointer: string;
}

/**
 * Calls `visit` with the top-level fields, each resource module and each
 * route's modules of a spec: the one walk of a kind's field rules over a spec.
 */
export function visitSpec(
  kind: Pick<Kind, 'fields' | 'modules'>,
  spec: Readonly<Record<string, unknown>>,
  visit: (group: FieldGroup) => void,
): void {
  visit({ rules: kind.fields, record: spec as Record<string, unknown>, pointer: '' });
  for (const module of kind.modules) {
    if (module.scope === 'resource') {
      visit({ rules: module.fields, record: asRecord(spec[module.name]), pointer: `/${module.name}` });
      continue;
    }
    const routes = spec[ROUTES_KEY];
    (Array.isArray(routes) ? routes : []).forEach((route, index) => {
      visit({
        rules: module.fields,
        record: asRecord(asRecord(route)?.[module.name]),
        pointer: `/${ROUTES_KEY}/${index}/${module.name}`,
      });
    });
  }
}

/** Names of the fields, in any kind or module, whose values are secrets (FieldRule.sensitive). */
export function secretFieldNames(kinds: readonly Kind[]): ReadonlySet<string> {
  return fieldNamesWhere(kinds, (rule) => rule.sensitive === true);
}

/** Names of the fields whose values validation messages never quote: secrets, and values that may hold one. */
export function unquotedFieldNames(kinds: readonly Kind[]): ReadonlySet<string> {
  return fieldNamesWhere(kinds, (rule) => rule.sensitive === true || rule.mayHoldSecrets === true);
}

function fieldNamesWhere(kinds: readonly Kind[], keep: (rule: FieldRule) => boolean): ReadonlySet<string> {
  const names = new Set<string>();
  for (const kind of kinds) {
    for (const rules of [kind.fields, ...kind.modules.map((module) => module.fields)]) {
      for (const rule of rules) if (keep(rule)) names.add(rule.name);
    }
  }
  return names;
}
