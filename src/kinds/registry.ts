import { certificateAuthorities } from './certificate-authorities.js';
import { httpsEdges } from './https-edges.js';
import { ipPolicyRules } from './ip-policy-rules.js';
import type { Kind } from './kind.js';
import { KIND_NAMES, type KindName } from './kind-name.js';
import { reservedAddrs } from './reserved-addrs.js';
import { tcpEdges } from './tcp-edges.js';
import { tlsEdges } from './tls-edges.js';

const KIND_BY_NAME: Readonly<Record<KindName, Kind>> = {
  ip_policy_rules: ipPolicyRules,
  reserved_addrs: reservedAddrs,
  certificate_authorities: certificateAuthorities,
  https_edges: httpsEdges,
  tcp_edges: tcpEdges,
  tls_edges: tlsEdges,
};

/** The one list of kinds, in KIND_NAMES order: everything else iterates over it. */
export const KINDS: readonly Kind[] = KIND_NAMES.map((name) => KIND_BY_NAME[name]);

export function kindByName(name: KindName): Kind {
  return KIND_BY_NAME[name];
}
