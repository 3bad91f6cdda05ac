import type { KindName } from '../../src/kinds/kind-name.js';
import type { LiveObject, LiveState } from '../../src/kinds/live-state.js';

/**
 * The live objects of a kind that a read covered. A snapshot holds only the
 * kinds it read, so a kind missing from it fails the test here instead of
 * passing as empty.
 */
export function readObjects(state: Pick<LiveState, 'objects'>, kind: KindName): readonly LiveObject[] {
  const objects = state.objects[kind];
  if (objects === undefined) throw new Error(`the snapshot did not read ${kind}`);
  return objects;
}
