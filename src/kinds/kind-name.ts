/**
 * A kind's name. Open, not a union: which kinds exist is the registry in use,
 * a value (the built-in KINDS, or a test's registry with a kind of its own,
 * test/support/sample-kind/), so a kind added to a registry needs no edit
 * here. Maps keyed by it may lack a kind the registry in use does not hold.
 */
export type KindName = string;
