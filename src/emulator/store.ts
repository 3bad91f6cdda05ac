import { OrderedCollection, type PageSource } from './ordered-collection.js';
import type { BaseRecord } from './records.js';

/**
 * A reference from each record of one collection to records of another, and
 * what deleting a referenced record does to the records that name it, as the
 * service family does.
 */
export interface CollectionReference<R extends BaseRecord> {
  /** Name of the referenced collection. */
  readonly target: string;
  /** The IDs a record names there. */
  ids(record: R): readonly string[];
  /**
   * `cascade`: the record is deleted with the one it names. `keep`: the
   * reference stays, naming nothing. `refuse`: the referenced record cannot
   * be deleted while this one names it (400 conflict).
   */
  readonly onDelete: 'cascade' | 'keep' | 'refuse';
}

/**
 * What the store knows of a collection: its name, the indexes it keeps and
 * the references of its records. The emulator's collections say more
 * (EmulatedCollection, src/emulator/emulated-collection.ts).
 */
export interface StoreCollection<R extends BaseRecord = BaseRecord> {
  /** Key of the collection in the store, the data file and the seed: `ip_policy_rules`. */
  readonly name: string;
  /**
   * Optional: a key at most one record holds (the service's one rule per CIDR
   * and IP policy); the store keeps an index of it (EmulatorStore.holderOf).
   */
  uniqueKey?(record: R): string;
  /**
   * Optional: the record belongs to one of another collection (an HTTPS
   * edge's route): the store keeps each parent's records in creation order
   * (EmulatorStore.childrenOf), and they are deleted with their parent.
   */
  readonly parent?: { readonly collection: string; id(record: R): string };
  readonly references?: readonly CollectionReference<R>[];
}

/** The JSON a data file holds (see persistence.ts). */
export interface StoreSnapshot {
  readonly format: 'edgesync-emulator/1';
  readonly nextSeq: number;
  /** Each collection's records, oldest first, by collection name. */
  readonly collections: Readonly<Record<string, readonly BaseRecord[]>>;
  /** Sequence numbers of deleted IDs, so a `before_id` that was deleted mid-pagination still works. */
  readonly retired: Readonly<Record<string, number>>;
}

/** One collection's records and the indexes its description asks for. */
class CollectionState {
  records = new OrderedCollection<BaseRecord>();
  /** By StoreCollection.uniqueKey. */
  byKey = new Map<string, BaseRecord>();
  /** By parent ID (StoreCollection.parent), each in creation order. */
  byParent = new Map<string, OrderedCollection<BaseRecord>>();

  constructor(readonly description: StoreCollection) {}

  add(record: BaseRecord): void {
    this.records.insert(record);
    const { uniqueKey, parent } = this.description;
    if (uniqueKey) this.byKey.set(uniqueKey(record), record);
    if (parent) {
      const parentId = parent.id(record);
      let children = this.byParent.get(parentId);
      if (children === undefined) {
        children = new OrderedCollection();
        this.byParent.set(parentId, children);
      }
      children.insert(record);
    }
  }

  remove(id: string): BaseRecord | undefined {
    const record = this.records.delete(id);
    if (!record) return undefined;
    this.unindexKey(record);
    const { parent } = this.description;
    if (parent) {
      const parentId = parent.id(record);
      const children = this.byParent.get(parentId);
      children?.delete(id);
      if (children?.size === 0) this.byParent.delete(parentId);
    }
    return record;
  }

  unindexKey(record: BaseRecord): void {
    const { uniqueKey } = this.description;
    if (!uniqueKey) return;
    const key = uniqueKey(record);
    if (this.byKey.get(key) === record) this.byKey.delete(key);
  }
}

const NO_CHILDREN = new OrderedCollection<BaseRecord>();

/**
 * The in-memory state of the emulated account, holding the collections it is
 * made with. Every method is synchronous: a handler checks and mutates within
 * one tick, so concurrent requests never interleave between a check and its write.
 */
export class EmulatorStore {
  private stored: Map<string, CollectionState>;
  private retired = new Map<string, number>();
  private nextSeq = 1;
  private readonly listeners = new Set<() => void>();

  /** `collections` in the order seeds create them and data files list them. */
  constructor(readonly collections: readonly StoreCollection[]) {
    this.stored = EmulatorStore.emptyCollections(collections);
  }

  private static emptyCollections(collections: readonly StoreCollection[]): Map<string, CollectionState> {
    return new Map(collections.map((collection) => [collection.name, new CollectionState(collection)]));
  }

  private of(collection: StoreCollection | string): CollectionState {
    const name = typeof collection === 'string' ? collection : collection.name;
    const stored = this.stored.get(name);
    if (stored === undefined) throw new Error(`the emulator stores no collection named ${name}`);
    return stored;
  }

  /** Reserves the next creation sequence number for a new record. */
  takeSeq(): number {
    const seq = this.nextSeq;
    this.nextSeq += 1;
    return seq;
  }

  /** Whether this store holds the collection (a registry without a kind has none of its records). */
  holds(collection: StoreCollection | string): boolean {
    return this.stored.has(typeof collection === 'string' ? collection : collection.name);
  }

  get<R extends BaseRecord>(collection: StoreCollection<R>, id: string): R | undefined {
    return this.of(collection).records.get(id) as R | undefined;
  }

  has(collection: StoreCollection | string, id: string): boolean {
    return (
      this.stored.get(typeof collection === 'string' ? collection : collection.name)?.records.has(id) ?? false
    );
  }

  insert<R extends BaseRecord>(collection: StoreCollection<R>, record: R): void {
    this.of(collection).add(record);
    this.changed();
  }

  delete(collection: StoreCollection | string, id: string): void {
    const record = this.of(collection).remove(id);
    if (!record) return;
    this.retired.set(id, record.seq);
    this.changed();
  }

  /** Every record of a collection, newest first. */
  list<R extends BaseRecord>(collection: StoreCollection<R>): R[] {
    return [...this.of(collection).records.newestFirst()] as R[];
  }

  /** A collection as list pages, newest first. */
  pages<R extends BaseRecord>(collection: StoreCollection<R>): PageSource<R> {
    return this.of(collection).records as unknown as PageSource<R>;
  }

  /** The record that holds `key` (StoreCollection.uniqueKey), if one does. */
  holderOf<R extends BaseRecord>(collection: StoreCollection<R>, key: string): R | undefined {
    return this.of(collection).byKey.get(key) as R | undefined;
  }

  /**
   * Changes fields of a stored record that its unique key is made of; the one
   * way to do it, so that the index stays true.
   */
  rekey<R extends BaseRecord>(collection: StoreCollection<R>, record: R, change: (record: R) => void): void {
    const stored = this.of(collection);
    stored.unindexKey(record);
    change(record);
    const { uniqueKey } = stored.description;
    if (uniqueKey) stored.byKey.set(uniqueKey(record), record);
    this.changed();
  }

  /** The records of `collection` whose parent is `parentId`, in creation order (StoreCollection.parent). */
  childrenOf<R extends BaseRecord>(collection: StoreCollection<R>, parentId: string): OrderedCollection<R> {
    return (this.of(collection).byParent.get(parentId) ?? NO_CHILDREN) as unknown as OrderedCollection<R>;
  }

  /** The creation sequence number of a live or deleted ID. */
  seqOf(id: string): number | undefined {
    for (const stored of this.stored.values()) {
      const record = stored.records.get(id);
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
      [...this.stored].map(([name, stored]) => [name, [...stored.records.oldestFirst()]]),
    );
    return {
      format: 'edgesync-emulator/1',
      nextSeq: this.nextSeq,
      collections,
      retired: Object.fromEntries(this.retired),
    };
  }

  /**
   * Replaces the whole state; the snapshot is trusted (it is our own data
   * file). A collection the snapshot lacks starts empty.
   */
  restore(snapshot: StoreSnapshot): void {
    this.stored = EmulatorStore.emptyCollections(this.collections);
    for (const [name, stored] of this.stored) {
      const records = [...(snapshot.collections[name] ?? [])].sort((a, b) => a.seq - b.seq);
      for (const record of records) stored.add(record);
    }
    this.retired = new Map(Object.entries(snapshot.retired ?? {}));
    this.nextSeq = snapshot.nextSeq;
  }
}
