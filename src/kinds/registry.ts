import { certificateAuthorities } from './certificate-authorities/index.js';
import { httpsEdges } from './https-edges/index.js';
import { ipPolicyRules } from './ip-policy-rules/index.js';
import type { Kind } from './kind.js';
import type { KindName } from './kind-name.js';
import { reservedAddrs } from './reserved-addrs/index.js';
import { tcpEdges } from './tcp-edges/index.js';
import { tlsEdges } from './tls-edges/index.js';

/**
 * The built-in registry: every kind folder, one line each, in the order
 * manifests, plans, exports and the emulator list them. Only entry points
 * import it (the CLI, the emulator's server.ts) and pass it on as a value;
 * every table of the planner, loader, exporter and emulator derives from it.
 */
export const KINDS: readonly Kind[] = [
  ipPolicyRules,
  reservedAddrs,
  certificateAuthorities,
  httpsEdges,
  tcpEdges,
  tlsEdges,
];

const KIND_BY_NAME: ReadonlyMap<KindName, Kind> = new Map(KINDS.map((kind) => [kind.name, kind]));

/** The built-in kind of this name; a name outside the built-in registry is a bug of the caller. */
export function kindByName(name: KindName): Kind {
  const kind = KIND_BY_NAME.get(name);
  if (kind === undefined) throw new Error(`no built-in kind is named ${JSON.stringify(name)}`);
  return kind;
}
