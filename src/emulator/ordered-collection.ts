import type { BaseRecord } from './records.js';

/** One page of a list, newest first; `more` when older records remain. */
export interface ListSlice<R> {
  readonly records: readonly R[];
  readonly more: boolean;
}

/** What a list endpoint pages through: records newest first, cut below a sequence number. */
export interface PageSource<R> {
  /** Up to `size` records with `seq` below `beforeSeq` (all when undefined), newest first. */
  page(beforeSeq: number | undefined, size: number): ListSlice<R>;
  /**
   * Where an ID the collection never held would stand: the `seq` of the
   * oldest record whose ID sorts at or after it (IDs sort by creation
   * time), or undefined when every record sorts before it.
   */
  seqSortingAt(id: string): number | undefined;
}

/** Index of the first record whose seq is at least `seq` in an ascending array. */
function lowerBound(ascending: readonly BaseRecord[], seq: number): number {
  let low = 0;
  let high = ascending.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ascending[middle] as BaseRecord).seq < seq) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Records by ID and in creation order at once, so that a list page costs a
 * binary search plus the page, not a copy and sort of the whole collection.
 * New records take the next sequence number, so an insert is an append;
 * a delete is a binary search and a splice.
 */
export class OrderedCollection<R extends BaseRecord> implements PageSource<R> {
  private readonly byId = new Map<string, R>();
  /** Invariant: sorted by `seq`, oldest first, and holds exactly the values of `byId`. */
  private readonly ascending: R[] = [];

  get size(): number {
    return this.ascending.length;
  }

  get(id: string): R | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Adds or replaces the record with this ID. */
  insert(record: R): void {
    if (this.byId.has(record.id)) this.delete(record.id);
    this.byId.set(record.id, record);
    const last = this.ascending[this.ascending.length - 1];
    if (last === undefined || last.seq < record.seq) this.ascending.push(record);
    else this.ascending.splice(lowerBound(this.ascending, record.seq), 0, record);
  }

  /** Removes the record with this ID and returns it. */
  delete(id: string): R | undefined {
    const record = this.byId.get(id);
    if (record === undefined) return undefined;
    this.byId.delete(id);
    let index = lowerBound(this.ascending, record.seq);
    // Sequence numbers are unique in practice; step over equal ones defensively.
    while (index < this.ascending.length && this.ascending[index] !== record) index += 1;
    if (index < this.ascending.length) this.ascending.splice(index, 1);
    return record;
  }

  page(beforeSeq: number | undefined, size: number): ListSlice<R> {
    const end = beforeSeq === undefined ? this.ascending.length : lowerBound(this.ascending, beforeSeq);
    const start = Math.max(0, end - size);
    return { records: this.ascending.slice(start, end).reverse(), more: start > 0 };
  }

  seqSortingAt(id: string): number | undefined {
    return this.ascending.find((record) => record.id >= id)?.seq;
  }

  /** Every record, newest first. */
  *newestFirst(): IterableIterator<R> {
    for (let index = this.ascending.length - 1; index >= 0; index -= 1) yield this.ascending[index] as R;
  }

  /** Every record, oldest first (the order a data file keeps). */
  oldestFirst(): readonly R[] {
    return this.ascending;
  }
}
