import { OrderedCollection, type PageSource } from './ordered-collection.js';
import {
  COLLECTION_NAMES,
  type CollectionName,
  type CollectionRecords,
  type HttpsEdgeRouteRecord,
  type IpPolicyRuleRecord,
} from './records.js';

/** The JSON a data file holds (see persistence.ts). */
export interface StoreSnapshot {
  readonly format: 'edgesync-emulator/1';
  readonly nextSeq: number;
  readonly collections: { readonly [C in CollectionName]: readonly CollectionRecords[C][] };
  /** Sequence numbers of deleted IDs, so a `before_id` that was deleted mid-pagination still works. */
  readonly retired: Readonly<Record<string, number>>;
}

type Collections = { [C in CollectionName]: OrderedCollection<CollectionRecords[C]> };

function emptyCollections(): Collections {
  return {
    ip_policies: new OrderedCollection(),
    endpoint_configurations: new OrderedCollection(),
    ip_policy_rules: new OrderedCollection(),
    reserved_addrs: new OrderedCollection(),
    certificate_authorities: new OrderedCollection(),
    https_edges: new OrderedCollection(),
    https_edge_routes: new OrderedCollection(),
    tcp_edges: new OrderedCollection(),
    tls_edges: new OrderedCollection(),
  };
}

function ruleKey(ipPolicyId: string, cidr: string): string {
  return `${ipPolicyId}\u0000${cidr}`;
}

const NO_ROUTES = new OrderedCollection<HttpsEdgeRouteRecord>();

/**
 * The in-memory state of the emulated account. Every method is synchronous:
 * a handler checks and mutates within one tick, so concurrent requests never
 * interleave between a check and its write.
 */
export class EmulatorStore {
  private collections: Collections = emptyCollections();
  private retired = new Map<string, number>();
  /** The rule of each (IP policy, CIDR) pair: the service allows one. */
  private rulesByPolicyAndCidr = new Map<string, IpPolicyRuleRecord>();
  private routesByEdge = new Map<string, OrderedCollection<HttpsEdgeRouteRecord>>();
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
    this.add(collection, record);
    this.changed();
  }

  delete(collection: CollectionName, id: string): void {
    const record = this.collections[collection].delete(id);
    if (!record) return;
    if (collection === 'ip_policy_rules') this.unindexRule(record as IpPolicyRuleRecord);
    if (collection === 'https_edge_routes') {
      const route = record as HttpsEdgeRouteRecord;
      const routes = this.routesByEdge.get(route.edge_id);
      routes?.delete(id);
      if (routes?.size === 0) this.routesByEdge.delete(route.edge_id);
    }
    this.retired.set(id, record.seq);
    this.changed();
  }

  /** Every record of a collection, newest first. */
  list<C extends CollectionName>(collection: C): CollectionRecords[C][] {
    return [...this.collections[collection].newestFirst()];
  }

  /** A collection as list pages, newest first. */
  pages<C extends CollectionName>(collection: C): PageSource<CollectionRecords[C]> {
    return this.collections[collection];
  }

  /** The rule of an IP policy for a canonical CIDR, if there is one. */
  ruleFor(ipPolicyId: string, cidr: string): IpPolicyRuleRecord | undefined {
    return this.rulesByPolicyAndCidr.get(ruleKey(ipPolicyId, cidr));
  }

  /** Changes a stored rule's CIDR; the one way to do it, so the (policy, CIDR) index stays true. */
  setRuleCidr(record: IpPolicyRuleRecord, cidr: string): void {
    this.unindexRule(record);
    record.cidr = cidr;
    this.rulesByPolicyAndCidr.set(ruleKey(record.ip_policy_id, cidr), record);
    this.changed();
  }

  /** The routes of one HTTPS edge, newest first. */
  routesOf(edgeId: string): OrderedCollection<HttpsEdgeRouteRecord> {
    return this.routesByEdge.get(edgeId) ?? NO_ROUTES;
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
      COLLECTION_NAMES.map((name) => [name, [...this.collections[name].oldestFirst()]]),
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
    this.collections = emptyCollections();
    this.rulesByPolicyAndCidr = new Map();
    this.routesByEdge = new Map();
    for (const name of COLLECTION_NAMES) {
      const records = [...(snapshot.collections[name] ?? [])].sort((a, b) => a.seq - b.seq);
      for (const record of records) this.add(name, record);
    }
    this.retired = new Map(Object.entries(snapshot.retired ?? {}));
    this.nextSeq = snapshot.nextSeq;
  }

  private add<C extends CollectionName>(collection: C, record: CollectionRecords[C]): void {
    this.collections[collection].insert(record);
    if (collection === 'ip_policy_rules') {
      const rule = record as IpPolicyRuleRecord;
      this.rulesByPolicyAndCidr.set(ruleKey(rule.ip_policy_id, rule.cidr), rule);
    }
    if (collection === 'https_edge_routes') {
      const route = record as HttpsEdgeRouteRecord;
      let routes = this.routesByEdge.get(route.edge_id);
      if (routes === undefined) {
        routes = new OrderedCollection();
        this.routesByEdge.set(route.edge_id, routes);
      }
      routes.insert(route);
    }
  }

  private unindexRule(record: IpPolicyRuleRecord): void {
    const key = ruleKey(record.ip_policy_id, record.cidr);
    if (this.rulesByPolicyAndCidr.get(key) === record) this.rulesByPolicyAndCidr.delete(key);
  }
}
