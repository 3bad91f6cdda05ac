/**
 * The built-in registry's kind names, written out for the modules that do not
 * take the registry as a value yet (the saved plan's reader, the daemon, the
 * CLI's --target and --kinds checks); test/kinds/kind-normalization.test.ts
 * holds them equal to the registry's. Everything else derives names from the
 * registry in use.
 */
export const KIND_NAMES = [
  'ip_policy_rules',
  'reserved_addrs',
  'certificate_authorities',
  'https_edges',
  'tcp_edges',
  'tls_edges',
] as const;

/** The name of one of the built-in kinds. */
export type BuiltInKindName = (typeof KIND_NAMES)[number];

/**
 * A kind's name. Open, not a union: which kinds exist is the registry in use,
 * a value (the built-in KINDS, or a test's registry with a kind of its own,
 * test/support/sample-kind/), so a kind added to a registry needs no edit
 * here. Maps keyed by it may lack a kind the registry in use does not hold.
 */
export type KindName = string;

/** Whether `value` names one of the built-in kinds. */
export function isKindName(value: string): value is BuiltInKindName {
  return (KIND_NAMES as readonly string[]).includes(value);
}
