import type { ApiRequest } from '../../src/api/edge-api.js';
import type { KindName } from '../../src/kinds/kind-name.js';
import type { LiveObject } from '../../src/kinds/live-state.js';
import { KINDS, kindByName } from '../../src/kinds/registry.js';
import type { Action } from '../../src/plan/plan.js';

type Json = Record<string, unknown>;

/** Every collection edgesync creates in, from the registry: the path its create request posts to. */
const COLLECTIONS: Readonly<Record<string, { kind: KindName; prefix: string }>> = Object.fromEntries(
  KINDS.filter((kind) => kind.ownership === 'metadata').map((kind) => [
    kind.createRequest({}, '').path,
    { kind: kind.name, prefix: kind.idPrefix },
  ]),
);

/**
 * A small account that interprets the planner's ApiRequests the way the
 * service does for the kinds the property tests use, and enforces the two
 * rules whose violation a wrong order would cause: one rule per CIDR and IP
 * policy, and no deleting a CA an edge still names.
 */
export class InMemoryAccount {
  private readonly objects = new Map<string, { kind: KindName; raw: Json }>();
  private readonly createdIds = new Map<string, string>();
  private sequence = 0;

  add(kind: KindName, raw: Json): void {
    this.objects.set(String(raw.id), { kind, raw: structuredClone(raw) });
  }

  raw(id: string): Json | undefined {
    return this.objects.get(id)?.raw;
  }

  liveObjects(): LiveObject[] {
    return [...this.objects.values()].map(({ kind, raw }) => kindByName(kind).fromApi(raw));
  }

  apply(action: Action): void {
    const path = action.request.path.replace(/\{([^{}]+)\}/g, (_token, key: string) => this.pendingId(key));
    const body = this.resolve(action.request.body) as Json | undefined;
    const created = this.send({
      method: action.request.method,
      path,
      ...(body === undefined ? {} : { body }),
    });
    if (created !== undefined) this.createdIds.set(action.key, created);
  }

  private pendingId(key: string): string {
    const id = this.createdIds.get(key);
    if (id === undefined) throw new Error(`${key} has not run yet`);
    return id;
  }

  private resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (typeof value === 'object' && value !== null) {
      if ('$createdBy' in value) return this.pendingId(String((value as { $createdBy: string }).$createdBy));
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.resolve(item)]));
    }
    return value;
  }

  /** Returns the new ID for a POST. */
  private send(request: ApiRequest): string | undefined {
    const collection = COLLECTIONS[request.path];
    if (request.method === 'POST' && collection)
      return this.create(collection.kind, collection.prefix, request.body as Json);
    const moduleMatch = /^\/edges\/https\/([^/]+)\/(mutual_tls|tls_termination)$/.exec(request.path);
    if (request.method === 'DELETE' && moduleMatch) {
      this.existing(moduleMatch[1] as string).raw[moduleMatch[2] as string] = null;
      return undefined;
    }
    const id = request.path.split('/').at(-1) as string;
    const object = this.existing(id);
    if (request.method === 'DELETE') {
      this.checkUnreferenced(id);
      this.objects.delete(id);
      return undefined;
    }
    if (request.method === 'PATCH') {
      this.update(object.kind, object.raw, request.body as Json);
      return undefined;
    }
    throw new Error(`unexpected request ${request.method} ${request.path}`);
  }

  private existing(id: string): { kind: KindName; raw: Json } {
    const object = this.objects.get(id);
    if (object === undefined) throw new Error(`404: ${id}`);
    return object;
  }

  private create(kind: KindName, prefix: string, body: Json): string {
    this.sequence += 1;
    const id = `${prefix}sim${String(this.sequence).padStart(6, '0')}`;
    const raw: Json = {
      id,
      uri: `https://sim/${id}`,
      created_at: new Date(Date.UTC(2030, 0, 1, 0, 0, this.sequence)).toISOString(),
    };
    if (kind === 'ip_policy_rules') {
      Object.assign(raw, {
        cidr: body.cidr,
        action: body.action,
        ip_policy: { id: body.ip_policy_id, uri: 'https://sim/ipp' },
      });
      this.checkUniqueRule(raw, id);
    }
    if (kind === 'certificate_authorities') raw.ca_pem = `${String(body.ca_pem).trimEnd()}\n`;
    if (kind === 'https_edges') {
      Object.assign(raw, {
        hostports: body.hostports ?? [],
        mutual_tls: null,
        tls_termination: null,
        routes: [],
      });
    }
    this.update(kind, raw, body);
    this.objects.set(id, { kind, raw });
    return id;
  }

  private update(kind: KindName, raw: Json, body: Json): void {
    for (const key of ['description', 'metadata']) {
      if (!(key in body)) continue;
      if (body[key] === '' || body[key] === null) delete raw[key];
      else raw[key] = body[key];
    }
    if (kind === 'ip_policy_rules' && typeof body.cidr === 'string') {
      raw.cidr = body.cidr;
      this.checkUniqueRule(raw, String(raw.id));
    }
    if (kind === 'https_edges') {
      if (Array.isArray(body.hostports)) raw.hostports = body.hostports;
      const mutualTls = body.mutual_tls as Json | undefined;
      if (mutualTls) {
        const ids = (mutualTls.certificate_authority_ids as string[]) ?? [];
        for (const ca of ids) this.existing(ca);
        raw.mutual_tls = {
          enabled: mutualTls.enabled,
          certificate_authorities: ids.map((ca) => ({ id: ca, uri: `https://sim/${ca}` })),
        };
      }
      if (body.tls_termination) raw.tls_termination = body.tls_termination;
    }
  }

  private checkUniqueRule(rule: Json, id: string): void {
    const policy = (rule.ip_policy as Json).id;
    for (const [otherId, other] of this.objects) {
      if (otherId === id || other.kind !== 'ip_policy_rules') continue;
      if (other.raw.cidr === rule.cidr && (other.raw.ip_policy as Json).id === policy) {
        throw new Error(`conflict: ${otherId} already holds ${String(rule.cidr)} in ${String(policy)}`);
      }
    }
  }

  private checkUnreferenced(id: string): void {
    for (const [edgeId, other] of this.objects) {
      const cas =
        ((other.raw.mutual_tls as Json | null)?.certificate_authorities as Json[] | undefined) ?? [];
      if (cas.some((ca) => ca.id === id)) throw new Error(`${id} is still named by ${edgeId}`);
    }
  }
}
