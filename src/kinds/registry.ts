import { certificateAuthorities } from './certificate-authorities/index.js';
import { httpsEdges } from './https-edges/index.js';
import { ipPolicyRules } from './ip-policy-rules/index.js';
import type { Kind } from './kind.js';
import { type BuiltInKindName, KIND_NAMES, type KindName } from './kind-name.js';
import { reservedAddrs } from './reserved-addrs/index.js';
import { tcpEdges } from './tcp-edges/index.js';
import { tlsEdges } from './tls-edges/index.js';

const KIND_BY_NAME: Readonly<Record<BuiltInKindName, Kind>> = {
  ip_policy_rules: ipPolicyRules,
  reserved_addrs: reservedAddrs,
  certificate_authorities: certificateAuthorities,
  https_edges: httpsEdges,
  tcp_edges: tcpEdges,
  tls_edges: tlsEdges,
};

/** The one list of kinds, in KIND_NAMES order: everything else iterates over it. */
export const KINDS: readonly Kind[] = KIND_NAMES.map((name) => KIND_BY_NAME[name]);

/** The built-in kind of this name; a name outside the built-in registry is a bug of the caller. */
export function kindByName(name: KindName): Kind {
  const kind = (KIND_BY_NAME as Readonly<Record<KindName, Kind | undefined>>)[name];
  if (kind === undefined) throw new Error(`no built-in kind is named ${JSON.stringify(name)}`);
  return kind;
}
