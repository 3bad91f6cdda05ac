import type { Kind, NamedIds } from './kind.js';
import { visitSpec } from './visit-spec.js';

/** Where an entry's spec names one ID of a resource edgesync does not list (FieldRule.names). */
export interface NamedIdPlace {
  /** JSON Pointer of the value in the spec: `/ip_policy_id`, `/ip_restriction/ip_policies/0`. */
  readonly pointer: string;
  /** JSON Pointer of the field that holds it: `/ip_restriction/ip_policies`. */
  readonly fieldPointer: string;
}

/**
 * Calls `visit` with each ID a spec names in a field whose resource can be
 * read by ID (NamedIds.path): the top level, each module and each route's
 * modules. A value without the resource's prefix is no ID of it (the schema
 * reports that) and is passed over. Called for every entry of a plan
 * (100,000 rules each name a policy), so it allocates only for the IDs.
 */
export function visitNamedIds(
  kind: Pick<Kind, 'fields' | 'modules'>,
  spec: Readonly<Record<string, unknown>>,
  visit: (id: string, named: NamedIds, place: () => NamedIdPlace) => void,
): void {
  visitSpec(kind, spec, ({ rules, record, pointer }) => {
    if (record === undefined) return;
    for (const rule of rules) {
      const named = rule.names;
      if (named?.path === undefined) continue;
      const value = record[rule.name];
      const fieldPointer = `${pointer}/${rule.name}`;
      if (Array.isArray(value)) {
        value.forEach((item: unknown, index) => {
          if (typeof item === 'string' && item.startsWith(named.prefix)) {
            visit(item, named, () => ({ pointer: `${fieldPointer}/${index}`, fieldPointer }));
          }
        });
      } else if (typeof value === 'string' && value.startsWith(named.prefix)) {
        visit(value, named, () => ({ pointer: fieldPointer, fieldPointer }));
      }
    }
  });
}

/** Whether any field of a kind or of its modules names a resource the plan reads by ID. */
export function namesReadableIds(kind: Pick<Kind, 'fields' | 'modules'>): boolean {
  return [kind.fields, ...kind.modules.map((module) => module.fields)].some((rules) =>
    rules.some((rule) => rule.names?.path !== undefined),
  );
}
