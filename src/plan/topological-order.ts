/** Something that has a key and the keys it must come after. */
export interface OrderedNode {
  readonly key: string;
  readonly dependsOn: readonly string[];
}

export type TopologicalResult<T> =
  | { readonly ok: true; readonly order: readonly T[] }
  | { readonly ok: false; readonly cycle: readonly string[] };

/**
 * Kahn's algorithm, stable: among the nodes that are ready, the one given
 * first goes first, so the same input always yields the same order.
 * Dependencies on keys not in `nodes` are ignored (the caller checks them).
 */
export function topologicalOrder<T extends OrderedNode>(nodes: readonly T[]): TopologicalResult<T> {
  const index = new Map(nodes.map((node, position) => [node.key, position]));
  const remaining = nodes.map((node) => node.dependsOn.filter((key) => index.has(key)).length);
  const dependents = nodes.map((): number[] => []);
  nodes.forEach((node, position) => {
    for (const key of node.dependsOn) {
      const dependency = index.get(key);
      if (dependency !== undefined) dependents[dependency]?.push(position);
    }
  });
  const ready: number[] = [];
  remaining.forEach((count, position) => {
    if (count === 0) ready.push(position);
  });
  const order: T[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => a - b);
    const position = ready.shift() as number;
    order.push(nodes[position] as T);
    for (const dependent of dependents[position] ?? []) {
      const left = (remaining[dependent] ?? 0) - 1;
      remaining[dependent] = left;
      if (left === 0) ready.push(dependent);
    }
  }
  if (order.length === nodes.length) return { ok: true, order };
  const cycle = nodes.filter((_, position) => (remaining[position] ?? 0) > 0).map((node) => node.key);
  return { ok: false, cycle };
}
