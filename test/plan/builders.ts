import { readFileSync } from 'node:fs';
import { canonicalHash } from '../../src/canonical-json.js';
import type { KindName } from '../../src/kinds/kind-name.js';
import type { LiveObject, LiveState } from '../../src/kinds/live-state.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import { kindByName } from '../../src/kinds/registry.js';
import type { DesiredEntry, DesiredState } from '../../src/manifest/desired-state.js';

export const OWNER = 'team-a';
export const POLICY = 'ipp_OfficeVpnPolicy000000000001';
export const OTHER_POLICY = 'ipp_BlockListPolicy000000000001';
export const CORP_PEM = readFileSync(new URL('../fixtures/certs/corp-root.pem', import.meta.url), 'utf8');
export const PARTNER_PEM = readFileSync(new URL('../fixtures/certs/partner-ca.pem', import.meta.url), 'utf8');

let line = 0;

/** A desired entry as the loader would make it, placed on its own line of `manifests/main.yaml`. */
export function entry(
  kind: KindName,
  name: string,
  spec: Record<string, unknown>,
  extra: { id?: string; protect?: boolean; fieldLocations?: DesiredEntry['fieldLocations'] } = {},
): DesiredEntry {
  line += 1;
  return {
    kind,
    name,
    ...(extra.id === undefined ? {} : { id: extra.id }),
    protect: extra.protect ?? false,
    spec,
    location: { file: 'manifests/main.yaml', line, column: 3 },
    fieldLocations: extra.fieldLocations ?? {},
  };
}

export function desiredState(entries: readonly DesiredEntry[]): DesiredState {
  const order = [
    'ip_policy_rules',
    'reserved_addrs',
    'certificate_authorities',
    'https_edges',
    'tcp_edges',
    'tls_edges',
  ];
  const sorted = [...entries].sort(
    (a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || a.name.localeCompare(b.name),
  );
  return {
    entries: sorted,
    files: ['manifests/main.yaml'],
    hash: canonicalHash(
      sorted.map(({ kind, name, id, protect, spec }) => ({ kind, name, id, protect, spec })),
    ),
  };
}

export function liveState(objects: readonly LiveObject[], extra: Partial<LiveState> = {}): LiveState {
  const byKind: Record<KindName, LiveObject[]> = {
    ip_policy_rules: [],
    reserved_addrs: [],
    certificate_authorities: [],
    https_edges: [],
    tcp_edges: [],
    tls_edges: [],
  };
  for (const object of objects) {
    const ofKind = byKind[object.kind] ?? [];
    ofKind.push(object);
    byKind[object.kind] = ofKind;
  }
  return {
    objects: byKind,
    complete: true,
    missingIds: [],
    stats: { requests: 0, pages: 0, durationMs: 0 },
    ...extra,
  };
}

/** Metadata string carrying the marker of `name` for `owner`. */
export function marked(name: string, owner = OWNER, user?: Record<string, unknown>): string {
  return encodeMetadata(user, { owner, name });
}

const CREATED = '2026-01-01T00:00:00Z';

export function liveRule(
  id: string,
  fields: {
    cidr: string;
    action: 'allow' | 'deny';
    policy?: string;
    metadata?: string;
    description?: string;
  },
): LiveObject {
  return kindByName('ip_policy_rules').fromApi({
    id,
    uri: `https://api.example.com/ip_policy_rules/${id}`,
    created_at: CREATED,
    cidr: fields.cidr,
    action: fields.action,
    ip_policy: { id: fields.policy ?? POLICY, uri: 'https://api.example.com/ip_policies/x' },
    ...(fields.description === undefined ? {} : { description: fields.description }),
    ...(fields.metadata === undefined ? {} : { metadata: fields.metadata }),
  });
}

export function liveCa(
  id: string,
  fields: { pem: string; metadata?: string; description?: string },
): LiveObject {
  return kindByName('certificate_authorities').fromApi({
    id,
    uri: `https://api.example.com/certificate_authorities/${id}`,
    created_at: CREATED,
    ca_pem: fields.pem,
    subject_common_name: 'corp-root.example.com',
    ...(fields.description === undefined ? {} : { description: fields.description }),
    ...(fields.metadata === undefined ? {} : { metadata: fields.metadata }),
  });
}

export function liveEdge(
  id: string,
  fields: {
    hostports: string[];
    metadata?: string;
    caIds?: string[];
    routes?: Record<string, unknown>[];
    tlsTermination?: Record<string, unknown>;
  },
): LiveObject {
  return kindByName('https_edges').fromApi({
    id,
    uri: `https://api.example.com/edges/https/${id}`,
    created_at: CREATED,
    hostports: fields.hostports,
    mutual_tls:
      fields.caIds === undefined
        ? null
        : {
            enabled: true,
            certificate_authorities: fields.caIds.map((ca) => ({ id: ca, uri: `https://x/${ca}` })),
          },
    tls_termination: fields.tlsTermination ?? null,
    routes: fields.routes ?? [],
    ...(fields.metadata === undefined ? {} : { metadata: fields.metadata }),
  });
}

export function liveTlsEdge(id: string, modules: { caIds?: string[] } = {}): LiveObject {
  return kindByName('tls_edges').fromApi({
    id,
    mutual_tls:
      modules.caIds === undefined
        ? null
        : {
            enabled: true,
            certificate_authorities: modules.caIds.map((ca) => ({ id: ca, uri: `https://x/${ca}` })),
          },
    tls_termination: null,
  });
}
