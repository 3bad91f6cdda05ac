import { createHash } from 'node:crypto';
import { cidrRange } from '../../src/kinds/ip-policy-rules/cidr.js';

/**
 * The access model the planner's safety promise is checked against, kept
 * apart from the planner and the kinds: it reads the service's own JSON.
 *
 * - An address is open to a subject when some allow rule of the subject's
 *   policies covers it and no deny rule of them does. Subjects are every IP
 *   policy on its own (an endpoint outside the manifests may list it) and
 *   every endpoint that carries policies: a TCP edge's `ip_restriction` and
 *   an HTTPS route's `ip_restriction`. An endpoint whose restriction is
 *   unset or disabled is open to every address.
 * - An edge's guard is open when nothing checks who connects: a TLS edge
 *   without enabled mutual TLS naming a CA, an HTTPS route whose edge has no
 *   such mutual TLS and whose OIDC module is unset or disabled. A guard also
 *   opens to a CA it accepts: a client certificate of that CA gets through.
 */

type Json = Record<string, unknown>;

/** Raw objects of the account as the service answers them, by ID; module-only edges hold their module bodies. */
export interface AccountSnapshot {
  readonly rules: ReadonlyMap<string, Json>;
  readonly httpsEdges: ReadonlyMap<string, Json>;
  readonly tcpEdges: ReadonlyMap<string, Json>;
  readonly tlsEdges: ReadonlyMap<string, Json>;
  readonly reservedAddrs: ReadonlyMap<string, Json>;
  readonly cas: ReadonlyMap<string, Json>;
}

/** A write the service applied, in the order it applied them (the emulator's `onWriteApplied`). */
export interface AnsweredWrite {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

export function emptySnapshot(): AccountSnapshot {
  return {
    rules: new Map(),
    httpsEdges: new Map(),
    tcpEdges: new Map(),
    tlsEdges: new Map(),
    reservedAddrs: new Map(),
    cas: new Map(),
  };
}

const COLLECTIONS = {
  ip_policy_rules: 'rules',
  certificate_authorities: 'cas',
  reserved_addrs: 'reservedAddrs',
} as const;

/** The account after one more applied write. */
export function applyWrite(snapshot: AccountSnapshot, write: AnsweredWrite): AccountSnapshot {
  const next = {
    rules: new Map(snapshot.rules),
    httpsEdges: new Map(snapshot.httpsEdges),
    tcpEdges: new Map(snapshot.tcpEdges),
    tlsEdges: new Map(snapshot.tlsEdges),
    reservedAddrs: new Map(snapshot.reservedAddrs),
    cas: new Map(snapshot.cas),
  };
  const segments = write.path.split('/').filter((segment) => segment !== '');
  const body = (write.body ?? {}) as Json;
  const [first, second, third, fourth, fifth, sixth] = segments;
  const collection = COLLECTIONS[first as keyof typeof COLLECTIONS];
  if (collection !== undefined) {
    const target = next[collection];
    if (write.method === 'DELETE' && second !== undefined) target.delete(second);
    else target.set(String(body.id), body);
    return next;
  }
  if (first !== 'edges') throw new Error(`access model: unknown write ${write.method} ${write.path}`);
  if (second === 'https') {
    if (fourth === undefined) {
      if (write.method === 'DELETE' && third !== undefined) next.httpsEdges.delete(third);
      else next.httpsEdges.set(String(body.id), body);
      return next;
    }
    const edge = next.httpsEdges.get(String(third));
    if (edge === undefined) throw new Error(`access model: ${write.path} names an unknown edge`);
    if (fourth === 'routes') {
      const routes = (edge.routes as Json[]).map((route) =>
        route.id === fifth ? { ...route, [String(sixth)]: write.method === 'DELETE' ? null : body } : route,
      );
      next.httpsEdges.set(String(third), { ...edge, routes });
    } else next.httpsEdges.set(String(third), { ...edge, [fourth]: null });
    return next;
  }
  const edges = second === 'tcp' ? next.tcpEdges : next.tlsEdges;
  const edge = edges.get(String(third)) ?? { id: third };
  edges.set(String(third), { ...edge, [String(fourth)]: write.method === 'DELETE' ? null : body });
  return next;
}

/** Every state the account went through: `start`, then one per applied write. */
export function momentsOf(start: AccountSnapshot, writes: readonly AnsweredWrite[]): AccountSnapshot[] {
  const moments = [start];
  for (const write of writes) moments.push(applyWrite(moments.at(-1) as AccountSnapshot, write));
  return moments;
}

interface Rule {
  readonly policy: string;
  readonly action: string;
  readonly family: string;
  readonly first: bigint;
  readonly last: bigint;
}

function rulesOf(snapshot: AccountSnapshot): Rule[] {
  const rules: Rule[] = [];
  for (const raw of snapshot.rules.values()) {
    const range = cidrRange(String(raw.cidr));
    if (range === undefined)
      throw new Error(`access model: rule ${String(raw.id)} has cidr ${String(raw.cidr)}`);
    rules.push({ policy: idOf(raw.ip_policy), action: String(raw.action), ...range });
  }
  return rules;
}

function idOf(ref: unknown): string {
  return String((ref as Json | null | undefined)?.id);
}

/** A subject that addresses reach: the policies it checks, or null when it checks none (open to all). */
type AddressSubjects = Map<string, readonly string[] | null>;

function addressSubjects(snapshot: AccountSnapshot, rules: readonly Rule[]): AddressSubjects {
  const subjects: AddressSubjects = new Map();
  for (const rule of rules) subjects.set(`ip_policy ${rule.policy}`, [rule.policy]);
  const restriction = (module: unknown): readonly string[] | null => {
    const value = module as Json | null | undefined;
    if (value === null || value === undefined || value.enabled === false) return null;
    return ((value.ip_policies as unknown[] | undefined) ?? []).map(idOf);
  };
  for (const edge of snapshot.tcpEdges.values())
    subjects.set(`tcp_edge ${String(edge.id)}`, restriction(edge.ip_restriction));
  for (const edge of snapshot.httpsEdges.values()) {
    for (const route of (edge.routes as Json[] | undefined) ?? [])
      subjects.set(`route ${String(route.id)}`, restriction(route.ip_restriction));
  }
  return subjects;
}

/** Whether `address` gets through the rules of `policies` (null: nothing checks). */
function addressOpen(
  rules: readonly Rule[],
  policies: readonly string[] | null,
  family: string,
  address: bigint,
): boolean {
  if (policies === null) return true;
  let allowed = false;
  for (const rule of rules) {
    if (!policies.includes(rule.policy) || rule.family !== family) continue;
    if (address < rule.first || address > rule.last) continue;
    if (rule.action === 'deny') return false;
    if (rule.action === 'allow') allowed = true;
  }
  return allowed;
}

/**
 * A CA is the certificates it signs: two objects with one PEM let the same
 * clients through, so a replaced CA with the PEM of the old is no opening.
 */
function caIdentity(snapshot: AccountSnapshot, id: string): string {
  const pem = snapshot.cas.get(id)?.ca_pem;
  return typeof pem === 'string'
    ? `pem ${createHash('sha256').update(pem.trim()).digest('hex').slice(0, 12)}`
    : id;
}

/** What lets a client through an edge's guard, by subject: `any client`, or `ca <id>` for a CA its mutual TLS accepts. */
function guardOpenings(snapshot: AccountSnapshot): Map<string, Set<string>> {
  const openings = new Map<string, Set<string>>();
  const mutualTls = (module: unknown): Set<string> | null => {
    const value = module as Json | null | undefined;
    if (value === null || value === undefined || value.enabled === false) return null;
    const cas = ((value.certificate_authorities as unknown[] | undefined) ?? []).map(idOf);
    return cas.length === 0 ? null : new Set(cas.map((id) => `ca ${caIdentity(snapshot, id)}`));
  };
  for (const edge of snapshot.tlsEdges.values())
    openings.set(`tls_edge ${String(edge.id)}`, mutualTls(edge.mutual_tls) ?? new Set(['any client']));
  for (const edge of snapshot.httpsEdges.values()) {
    const edgeGuard = mutualTls(edge.mutual_tls);
    for (const route of (edge.routes as Json[] | undefined) ?? []) {
      const oidc = route.oidc as Json | null | undefined;
      const oidcGuards = oidc !== null && oidc !== undefined && oidc.enabled !== false;
      // OIDC stops whoever has no login, whatever CA signed their certificate.
      const open = oidcGuards ? new Set<string>() : (edgeGuard ?? new Set(['any client']));
      openings.set(`route ${String(route.id)} guard`, open);
    }
  }
  return openings;
}

/** One thing open at one moment that both the start and the end keep closed. */
export interface Widening {
  /** Index into the moments: 0 is the start, i the state after the i-th applied write. */
  readonly moment: number;
  readonly subject: string;
  /** An address range (`10.0.2.0 – 10.0.2.255`), `any client`, or `ca pem <hash>` for a CA's certificates. */
  readonly opening: string;
}

/**
 * Every moment at which an address or a guard is open that is closed in
 * both `a` and `b`. Addresses are checked exactly: the address space is cut
 * at every rule boundary of the three states compared, and one address of
 * each piece stands for the whole piece.
 */
export function findWidenings(
  a: AccountSnapshot,
  b: AccountSnapshot,
  moments: readonly AccountSnapshot[],
): Widening[] {
  const widenings: Widening[] = [];
  const ends = [a, b].map((snapshot) => ({
    rules: rulesOf(snapshot),
    subjects: undefined as AddressSubjects | undefined,
    guards: guardOpenings(snapshot),
    snapshot,
  }));
  for (const end of ends) end.subjects = addressSubjects(end.snapshot, end.rules);
  moments.forEach((moment, index) => {
    const rules = rulesOf(moment);
    const subjects = addressSubjects(moment, rules);
    for (const [subject, policies] of subjects) {
      let run: Piece | undefined;
      const flush = (): void => {
        if (run !== undefined) widenings.push({ moment: index, subject, opening: describePiece(run) });
        run = undefined;
      };
      for (const piece of addressPieces([rules, ...ends.map((end) => end.rules)])) {
        const widened =
          addressOpen(rules, policies, piece.family, piece.first) &&
          !ends.some((end) => {
            // A subject absent at an end serves nothing there: closed.
            const endPolicies = end.subjects?.get(subject);
            return (
              endPolicies !== undefined && addressOpen(end.rules, endPolicies, piece.family, piece.first)
            );
          });
        if (!widened) flush();
        else if (run !== undefined && run.family === piece.family && run.last + 1n === piece.first)
          run = { ...run, last: piece.last };
        else {
          flush();
          run = piece;
        }
      }
      flush();
    }
    for (const [subject, openings] of guardOpenings(moment)) {
      for (const opening of openings) {
        const openAtAnEnd = ends.some((end) => {
          const endOpenings = end.guards.get(subject);
          return endOpenings !== undefined && (endOpenings.has(opening) || endOpenings.has('any client'));
        });
        if (!openAtAnEnd) widenings.push({ moment: index, subject, opening });
      }
    }
  });
  return widenings;
}

interface Piece {
  readonly family: string;
  readonly first: bigint;
  readonly last: bigint;
}

const FAMILY_LAST: Readonly<Record<string, bigint>> = {
  ipv4: (1n << 32n) - 1n,
  ipv6: (1n << 128n) - 1n,
};

/** The address space of each family cut at every boundary of the given rules. */
function addressPieces(ruleSets: readonly (readonly Rule[])[]): Piece[] {
  const pieces: Piece[] = [];
  for (const [family, last] of Object.entries(FAMILY_LAST)) {
    const cuts = new Set<bigint>([0n]);
    for (const rules of ruleSets) {
      for (const rule of rules) {
        if (rule.family !== family) continue;
        cuts.add(rule.first);
        if (rule.last < last) cuts.add(rule.last + 1n);
      }
    }
    const sorted = [...cuts].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    sorted.forEach((start, position) => {
      const next = sorted[position + 1];
      pieces.push({ family, first: start, last: next === undefined ? last : next - 1n });
    });
  }
  return pieces;
}

function describePiece(piece: Piece): string {
  return `${formatAddress(piece.family, piece.first)} – ${formatAddress(piece.family, piece.last)}`;
}

function formatAddress(family: string, value: bigint): string {
  if (family === 'ipv4') return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((value >> shift) & 0xffffn).toString(16));
  return groups.join(':');
}

/**
 * Stable values the account must never lose between two states that both
 * hold them: a reserved address's `addr` (the host:port clients connect to)
 * and a CA that an edge's mutual TLS names.
 */
export function stableValues(snapshot: AccountSnapshot): Set<string> {
  const values = new Set<string>();
  for (const raw of snapshot.reservedAddrs.values()) values.add(`addr ${String(raw.addr)}`);
  const named = (module: unknown): void => {
    const value = module as Json | null | undefined;
    for (const ca of (value?.certificate_authorities as unknown[] | undefined) ?? []) {
      const id = idOf(ca);
      if (snapshot.cas.has(id)) values.add(`ca ${id} in use`);
    }
  };
  for (const edge of snapshot.httpsEdges.values()) named(edge.mutual_tls);
  for (const edge of snapshot.tlsEdges.values()) named(edge.mutual_tls);
  return values;
}

/** Moments at which a stable value that both `a` and `b` hold is gone. */
export function findLostValues(
  a: AccountSnapshot,
  b: AccountSnapshot,
  moments: readonly AccountSnapshot[],
): { readonly moment: number; readonly value: string }[] {
  const inB = stableValues(b);
  const kept = [...stableValues(a)].filter((value) => inB.has(value));
  const lost: { moment: number; value: string }[] = [];
  moments.forEach((moment, index) => {
    const present = new Set<string>();
    for (const raw of moment.reservedAddrs.values()) present.add(`addr ${String(raw.addr)}`);
    for (const id of moment.cas.keys()) present.add(`ca ${id} in use`);
    for (const value of kept) if (!present.has(value)) lost.push({ moment: index, value });
  });
  return lost;
}
