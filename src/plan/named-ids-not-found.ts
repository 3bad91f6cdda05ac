import { namesReadableIds, visitNamedIds } from '../kinds/named-id-references.js';
import { sourceOf } from './draft-action.js';
import type { PlanError } from './plan.js';
import type { PlanInputs } from './plan-inputs.js';

/**
 * A planner phase: every place a manifest names an IP policy or an endpoint
 * configuration (any resource of FieldRule.names) that the account lacks is
 * an error there, stopping its entry, so that an apply fails before its
 * first write rather than on a 400 after others. The reads are the plan
 * session's (`live.missingNamedIds`); this only points at the manifests.
 */
export function namedIdsNotFound(inputs: PlanInputs): PlanError[] {
  const missing = new Set(inputs.live.missingNamedIds ?? []);
  if (missing.size === 0) return [];
  const errors: PlanError[] = [];
  for (const entry of inputs.desired.entries) {
    const kind = inputs.kindsByName.get(entry.kind);
    if (kind === undefined || !namesReadableIds(kind)) continue;
    visitNamedIds(kind, entry.spec, (id, named, place) => {
      if (!missing.has(id)) return;
      const { pointer, fieldPointer } = place();
      errors.push({
        code: 'reference_not_found',
        message: `${entry.kind}.${entry.name}${fieldPointer.replace(/\//g, '.')}: ${named.title} ${id} does not exist in the account`,
        source: entry.fieldLocations[pointer] ?? sourceOf(entry, fieldPointer),
        entry: { kind: entry.kind, name: entry.name },
      });
    });
  }
  return errors;
}
