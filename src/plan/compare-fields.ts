import { sameCanonicalJson } from '../json-equality.js';
import type { FieldRule } from '../kinds/kind.js';
import type { FieldChange } from './plan.js';

/** Shown instead of a secret, in FieldChange values and masked objects. */
export const SENSITIVE_MASK = '(sensitive)';

/**
 * Undefined, null, "" and [] all mean "not set": the service may omit an
 * unset optional field, return it as null, or as an empty list.
 */
function isUnset(value: unknown): boolean {
  return (
    value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)
  );
}

/**
 * Whether a desired value equals the live one under the rule. Both are
 * comparable forms: a desired spec through its kind's `normalizeDesired`
 * (PlanInputs.specs), names resolved; a live spec as the kind reads it; so
 * a set-like list is already sorted and without duplicates on both sides.
 * They are equal when their canonical JSON would be, unset values aside
 * (undefined, null, "" and [] all mean "not set"), found without printing
 * either: most fields of most entries are plain strings, and the JSON of
 * each was garbage that planning 100,000 no-ops made twice per field
 * (docs/performance.md). A secret the service does not return cannot be
 * compared, so it counts as equal rather than as a change on every plan.
 */
export function fieldEquals(rule: FieldRule, desired: unknown, live: unknown, liveExists = true): boolean {
  if (liveExists && rule.sensitive === true && live === undefined && desired !== undefined) return true;
  if (desired === live) return true;
  const desiredUnset = printsUnset(desired);
  const liveUnset = printsUnset(live);
  if (desiredUnset || liveUnset) return desiredUnset && liveUnset;
  // Two different strings, or a string against anything else: the usual difference.
  if (typeof desired === 'string' || typeof live === 'string') return false;
  return sameCanonicalJson(desired, live);
}

/** Unset, or a number JSON prints as null (not finite), which is compared as unset. */
function printsUnset(value: unknown): boolean {
  return isUnset(value) || (typeof value === 'number' && !Number.isFinite(value));
}

/** Replaces the values of sensitive fields of a module-like object with the mask. */
export function maskSensitive(rules: readonly FieldRule[], value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const masked: Record<string, unknown> = { ...value };
  for (const rule of rules) {
    if (rule.sensitive === true && masked[rule.name] !== undefined) masked[rule.name] = SENSITIVE_MASK;
  }
  return masked;
}

/**
 * A FieldChange with secrets kept out: a sensitive field carries neither
 * `before` nor `after`, only the flag.
 */
export function fieldChange(path: string, rule: FieldRule, before: unknown, after: unknown): FieldChange {
  const sensitive = rule.sensitive === true;
  const forcesReplace = rule.onChange === 'replace';
  const showBefore = !sensitive && !isUnset(before);
  const showAfter = !sensitive && !isUnset(after);
  // One literal per shape rather than spreads of temporary objects: a plan of 100,000 creates
  // holds about five of these per create (docs/performance.md). Keys in the same order.
  if (showBefore && showAfter) return { path, before, after, sensitive, forcesReplace };
  if (showBefore) return { path, before, sensitive, forcesReplace };
  if (showAfter) return { path, after, sensitive, forcesReplace };
  return { path, sensitive, forcesReplace };
}

/**
 * The FieldChanges that set a field to a plain value from nothing, one per
 * field and value, for the creates of one plan to share: 100,000 rules set
 * `action` to one of two values and `ip_policy_id` to one of a few, and a
 * FieldChange each was ~56 bytes kept with the plan (docs/performance.md). FieldChanges
 * are never written to. At most MAX_SHARED_VALUES values per field are
 * remembered, so a field whose every value differs (a CIDR) costs a bounded map.
 */
export class SharedFieldChanges {
  readonly #byRule = new Map<FieldRule, Map<unknown, FieldChange>>();

  /** The FieldChange that sets `path` (ruled by `rule`) to `after` from nothing. */
  setting(path: string, rule: FieldRule, after: unknown): FieldChange {
    if (after !== null && typeof after === 'object') return fieldChange(path, rule, undefined, after);
    let byValue = this.#byRule.get(rule);
    if (byValue === undefined) {
      byValue = new Map();
      this.#byRule.set(rule, byValue);
    }
    const shared = byValue.get(after);
    if (shared !== undefined && shared.path === path) return shared;
    const change = fieldChange(path, rule, undefined, after);
    if (shared === undefined && byValue.size < MAX_SHARED_VALUES) byValue.set(after, change);
    return change;
  }
}

const MAX_SHARED_VALUES = 64;

/**
 * Field-level differences between a desired object and a live one (either
 * may be absent), over the given rules, paths prefixed with `prefix`. With
 * no live object, `shared` may give the changes (see SharedFieldChanges).
 */
export function diffFields(
  rules: readonly FieldRule[],
  desired: Readonly<Record<string, unknown>> | undefined,
  live: Readonly<Record<string, unknown>> | undefined,
  prefix: string,
  shared?: SharedFieldChanges,
): FieldChange[] {
  const changes: FieldChange[] = [];
  // An index loop: an iterator per call in cold code, several calls per entry planned (docs/performance.md).
  for (let at = 0; at < rules.length; at += 1) {
    const rule = rules[at] as FieldRule;
    const after = desired?.[rule.name];
    const before = live?.[rule.name];
    if (fieldEquals(rule, after, before, live !== undefined)) continue;
    const path = `${prefix}${rule.name}`;
    changes.push(
      shared !== undefined && live === undefined
        ? shared.setting(path, rule, after)
        : fieldChange(path, rule, before, after),
    );
  }
  // A copy of its own length: a list grown by push holds 17 slots, and the plan keeps one per
  // create (~100 bytes of empty slots each at 100,000 creates, docs/performance.md).
  return changes.length === 0 ? changes : changes.slice();
}

/**
 * The changes of a delete, for people: every field the live object sets,
 * from its value to nothing. What diffFields(rules, undefined, live) gives,
 * without printing any value to compare it with nothing.
 */
export function removalChanges(
  rules: readonly FieldRule[],
  live: Readonly<Record<string, unknown>>,
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (let at = 0; at < rules.length; at += 1) {
    const rule = rules[at] as FieldRule;
    const before = live[rule.name];
    if (!isUnset(before)) changes.push(fieldChange(rule.name, rule, before, undefined));
  }
  return changes.length === 0 ? changes : changes.slice();
}
