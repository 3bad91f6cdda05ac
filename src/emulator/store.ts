import { COLLECTION_NAMES, type CollectionName, type CollectionRecords } from './records.js';

/** The JSON a data file holds (see persistence.ts). */
export interface StoreSnapshot {
  readonly format: 'edgesync-emulator/1';
  readonly nextSeq: number;
  readonly collections: { readonly [C in CollectionName]: readonly CollectionRecords[C][] };
  /** Sequence numbers of deleted IDs, so a `before_id` that was deleted mid-pagination still works. */
  readonly retired: Readonly<Record<string, number>>;
}

type Collections = { [C in CollectionName]: Map<string, CollectionRecords[C]> };

function emptyCollections(): Collections {
  return {
    ip_policies: new Map(),
    endpoint_configurations: new Map(),
    ip_policy_rules: new Map(),
    reserved_addrs: new Map(),
    certificate_authorities: new Map(),
    https_edges: new Map(),
    https_edge_routes: new Map(),
    tcp_edges: new Map(),
    tls_edges: new Map(),
  };
}

/**
 * The in-memory state of the emulated account. Every method is synchronous:
 * a handler checks and mutates within one tick, so concurrent requests never
 * interleave between a check and its write.
 */
export class EmulatorStore {
  private collections: Collections = emptyCollections();
  private retired = new Map<string, number>();
  private nextSeq = 1;
  private readonly listeners = new Set<() => void>();

  /** Reserves the next creation sequence number for a new record. */
  takeSeq(): number {
    const seq = this.nextSeq;
    this.nextSeq += 1;
    return seq;
  }

  get<C extends CollectionName>(collection: C, id: string): CollectionRecords[C] | undefined {
    return this.collections[collection].get(id);
  }

  has(collection: CollectionName, id: string): boolean {
    return this.collections[collection].has(id);
  }

  insert<C extends CollectionName>(collection: C, record: CollectionRecords[C]): void {
    this.collections[collection].set(record.id, record);
    this.changed();
  }

  delete(collection: CollectionName, id: string): void {
    const record = this.collections[collection].get(id);
    if (!record) return;
    this.collections[collection].delete(id);
    this.retired.set(id, record.seq);
    this.changed();
  }

  /** Every record of a collection, newest first. */
  list<C extends CollectionName>(collection: C): CollectionRecords[C][] {
    return [...this.collections[collection].values()].sort((a, b) => b.seq - a.seq);
  }

  /** The creation sequence number of a live or deleted ID. */
  seqOf(id: string): number | undefined {
    for (const name of COLLECTION_NAMES) {
      const record = this.collections[name].get(id);
      if (record) return record.seq;
    }
    return this.retired.get(id);
  }

  /** Call after mutating a record in place. */
  changed(): void {
    for (const listener of this.listeners) listener();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  snapshot(): StoreSnapshot {
    const collections = Object.fromEntries(
      COLLECTION_NAMES.map((name) => [name, [...this.collections[name].values()]]),
    ) as unknown as StoreSnapshot['collections'];
    return {
      format: 'edgesync-emulator/1',
      nextSeq: this.nextSeq,
      collections,
      retired: Object.fromEntries(this.retired),
    };
  }

  /** Replaces the whole state; the snapshot is trusted (it is our own data file). */
  restore(snapshot: StoreSnapshot): void {
    const collections = emptyCollections();
    for (const name of COLLECTION_NAMES) {
      const target = collections[name] as Map<string, CollectionRecords[typeof name]>;
      for (const record of snapshot.collections[name] ?? []) target.set(record.id, record);
    }
    this.collections = collections;
    this.retired = new Map(Object.entries(snapshot.retired ?? {}));
    this.nextSeq = snapshot.nextSeq;
  }
}
