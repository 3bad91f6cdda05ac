/** Something that has a key. */
export interface OrderedNode {
  readonly key: string;
}

/** The keys a node must come after: a set or a list, walked with forEach (see topologicalOrder). */
export type DependsOn = { forEach(visit: (key: string) => void): void };

export type TopologicalResult<T> =
  | { readonly ok: true; readonly order: readonly T[] }
  | { readonly ok: false; readonly cycle: readonly string[] };

/** topologicalPositions' answer: the nodes' positions in order, or the keys of those in a cycle. */
export type TopologicalPositions =
  | { readonly ok: true; readonly positions: Int32Array }
  | { readonly ok: false; readonly cycle: readonly string[] };

/**
 * Kahn's algorithm, stable: among the nodes that are ready, the one given
 * first goes first, so the same input always yields the same order.
 * Dependencies on keys not in `nodes` are ignored (the caller checks them).
 */
export function topologicalOrder<T extends OrderedNode>(
  nodes: readonly T[],
  dependsOn: (node: T) => DependsOn,
): TopologicalResult<T> {
  const sorted = topologicalPositions(nodes, dependsOn);
  if (!sorted.ok) return sorted;
  return { ok: true, order: inOrder(nodes, sorted.positions) };
}

/** `nodes` at `positions`: the nodes themselves when every one is at its own place. */
export function inOrder<T>(nodes: readonly T[], positions: Int32Array): readonly T[] {
  let moved = false;
  for (let at = 0; at < positions.length && !moved; at += 1) moved = positions[at] !== at;
  if (!moved) return nodes;
  const order = new Array<T>(positions.length);
  for (let at = 0; at < positions.length; at += 1) order[at] = nodes[positions[at] as number] as T;
  return order;
}

/** What topologicalOrder sorts by: the positions of `nodes` in order (Kahn's algorithm, stable). */
export function topologicalPositions<T extends OrderedNode>(
  nodes: readonly T[],
  dependsOn: (node: T) => DependsOn,
): TopologicalPositions {
  // Index loops and forEach, not for…of: the plan runs this once per process, cold, and unoptimized
  // code allocates an iterator per for…of, several per node of 10,000 actions.
  // Only the keys something waits for are indexed: a map of every one of 100,000 actions, most of
  // which nothing waits for, was promoted garbage at the plan's peak.
  const index = new Map<string, number>();
  const indexKey = (key: string): void => {
    index.set(key, -1);
  };
  for (let position = 0; position < nodes.length; position += 1)
    dependsOn(nodes[position] as T).forEach(indexKey);
  if (index.size === 0) return { ok: true, positions: identityPositions(nodes.length) };
  for (let position = 0; position < nodes.length; position += 1) {
    const key = (nodes[position] as T).key;
    if (index.has(key)) index.set(key, position);
  }
  // Counted and listed without a list per node: most of 100,000 actions wait for nothing and
  // nothing waits for them. Counts, ready positions and the order are sized once:
  // grown by push, each left its earlier copies as garbage at the plan's peak.
  const remaining = new Int32Array(nodes.length);
  const dependents: (number[] | undefined)[] = new Array(nodes.length).fill(undefined);
  let waiter = 0;
  const countDependency = (key: string): void => {
    const dependency = index.get(key);
    if (dependency === undefined || dependency === -1) return;
    remaining[waiter] = (remaining[waiter] as number) + 1;
    const waiting = dependents[dependency];
    if (waiting === undefined) dependents[dependency] = [waiter];
    else waiting.push(waiter);
  };
  for (waiter = 0; waiter < nodes.length; waiter += 1) dependsOn(nodes[waiter] as T).forEach(countDependency);
  // A binary min-heap of positions: sorting the ready list at every step made ordering N actions quadratic.
  const ready = new PositionHeap(nodes.length);
  for (let position = 0; position < nodes.length; position += 1)
    if (remaining[position] === 0) ready.push(position);
  const order = new Int32Array(nodes.length);
  let placed = 0;
  while (ready.size > 0) {
    const position = ready.pop();
    order[placed] = position;
    placed += 1;
    const waiting = dependents[position];
    if (waiting === undefined) continue;
    for (let at = 0; at < waiting.length; at += 1) {
      const dependent = waiting[at] as number;
      const left = (remaining[dependent] as number) - 1;
      remaining[dependent] = left;
      if (left === 0) ready.push(dependent);
    }
  }
  if (placed === nodes.length) return { ok: true, positions: order };
  const cycle = nodes.filter((_, position) => (remaining[position] ?? 0) > 0).map((node) => node.key);
  return { ok: false, cycle };
}

function identityPositions(length: number): Int32Array {
  const positions = new Int32Array(length);
  for (let at = 0; at < length; at += 1) positions[at] = at;
  return positions;
}

/** The smallest position first; holds at most `capacity` positions (each node is pushed once). */
class PositionHeap {
  readonly #items: Int32Array;
  #size = 0;

  constructor(capacity: number) {
    this.#items = new Int32Array(capacity);
  }

  get size(): number {
    return this.#size;
  }

  push(position: number): void {
    const items = this.#items;
    let at = this.#size;
    this.#size += 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if ((items[parent] as number) <= position) break;
      items[at] = items[parent] as number;
      at = parent;
    }
    items[at] = position;
  }

  pop(): number {
    const items = this.#items;
    const top = items[0] as number;
    this.#size -= 1;
    const size = this.#size;
    if (size === 0) return top;
    const last = items[size] as number;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && (items[right] as number) < (items[left] as number) ? right : left;
      if ((items[child] as number) >= last) break;
      items[at] = items[child] as number;
      at = child;
    }
    items[at] = last;
    return top;
  }
}
