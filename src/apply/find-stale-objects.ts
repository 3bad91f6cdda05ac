import type { EdgeApi } from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { Plan } from '../plan/plan.js';
import { isAlreadyAbsent } from './action-failure.js';

export interface StaleObject {
  readonly kind: KindName;
  readonly id: string;
  /** `changed`: its fingerprint differs from the saved one; `gone`: the service no longer has it. */
  readonly reason: 'changed' | 'gone';
}

export interface FindStaleObjectsOptions {
  readonly api: EdgeApi;
  readonly kindByName: (name: KindName) => Kind;
  readonly signal?: AbortSignal;
}

/**
 * Re-reads exactly the live objects a saved plan touches (one GET each, or
 * the module GETs of a module-only edge) and returns those that are no
 * longer as the plan saw them. An object the plan touches but recorded no
 * fingerprint for cannot be checked and is reported as changed.
 */
export async function findStaleObjects(plan: Plan, options: FindStaleObjectsOptions): Promise<StaleObject[]> {
  const touched = new Map<string, KindName>();
  for (const change of plan.changes) {
    if (change.id !== undefined && change.actionKeys.length > 0) touched.set(change.id, change.kind);
  }
  const stale: StaleObject[] = [];
  for (const [id, kindName] of touched) {
    const saved = plan.fingerprints[id];
    const current = await currentFingerprint(options.kindByName(kindName), id, options);
    if (current === undefined) stale.push({ kind: kindName, id, reason: 'gone' });
    else if (current !== saved) stale.push({ kind: kindName, id, reason: 'changed' });
  }
  return stale;
}

async function currentFingerprint(
  kind: Kind,
  id: string,
  options: FindStaleObjectsOptions,
): Promise<string | undefined> {
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  if (kind.ownership === 'modules-only') {
    const [object] = await kind.readLive({ api: options.api, ids: [id], ...signal });
    return object?.fingerprint;
  }
  // The spec reads every managed kind at the path it deletes at.
  const path = kind.deleteRequest(id).path;
  try {
    const response = await options.api.request({ method: 'GET', path }, { kind: kind.name, ...signal });
    return kind.fromApi(response.body).fingerprint;
  } catch (error) {
    if (isAlreadyAbsent(error)) return undefined;
    throw error;
  }
}
