/**
 * The one empty list of every action without secrets or dependencies, most of
 * them: an empty list each was ~32 bytes kept per action. Frozen, as it is
 * shared.
 */
export const NONE: readonly string[] = Object.freeze([]);
