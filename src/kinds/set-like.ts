/**
 * A list with set meaning in its one comparable form: sorted, without
 * duplicates. Non-string members (e.g. a planner's pending-ID placeholder)
 * keep their order after the strings. Anything but an array is returned
 * unchanged, for validation to report.
 */
export function normalizeSetLike(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const strings = [...new Set(value.filter((item): item is string => typeof item === 'string'))].sort();
  const others = value.filter((item) => typeof item !== 'string');
  return [...strings, ...others];
}
