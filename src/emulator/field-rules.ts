import { isRecord } from '../json-value.js';
import { INVALID_VALUE, MALFORMED_JSON, METADATA_TOO_LONG, UNKNOWN_FIELD } from './api-errors.js';
import type { FamilyRule } from './family-rule.js';
import type { ServiceError } from './service-error.js';

/**
 * Request-body rules as data. `checkObject` applies them and answers the
 * first violation the way the service does, with the family's number for
 * it (FieldRule.refusals): 214 for a key the operation does not take, 215
 * for a wrong type or a value no rule of its own refuses, both with
 * `details.field` as a dotted path (`mutual_tls.certificate_authority_ids`).
 */
export type FieldRule = (
  | {
      readonly type: 'string';
      /** Limit in UTF-8 bytes, as the spec counts. */
      readonly maxBytes?: number;
      readonly oneOf?: readonly string[];
      readonly format?: 'url' | 'hostport' | 'non-empty';
      /** A pattern the whole value must match, and how to say so. */
      readonly pattern?: { readonly regex: RegExp; readonly expected: string };
    }
  | { readonly type: 'boolean' }
  | { readonly type: 'uint32'; readonly min?: number; readonly max?: number }
  /** `min` itself is refused when `minExclusive` (a share that must be above 0). */
  | { readonly type: 'number'; readonly min: number; readonly max: number; readonly minExclusive?: boolean }
  | { readonly type: 'string-list'; readonly format?: 'hostport' | 'non-empty'; readonly minItems?: number }
  | { readonly type: 'string-map' }
  | {
      readonly type: 'object';
      readonly fields: ObjectRules;
      readonly minKeys?: number;
      readonly maxKeys?: number;
    }
  /** Checked by the handler (modules whose checks need the store). */
  | { readonly type: 'any' }
) & {
  readonly required?: boolean;
  /** JSON null is accepted and kept as null. */
  readonly nullable?: boolean;
  /**
   * The family's rule for each way the value can be refused, where the
   * family numbers it (a wrong JSON type is always its 215): `missing` for a
   * required field left out, `tooLong` past `maxBytes`, `invalid` for any
   * other value the field refuses. Each defaults to 215.
   */
  readonly refusals?: FieldRefusals;
};

export interface FieldRefusals {
  readonly missing?: FamilyRule;
  readonly invalid?: FamilyRule;
  readonly tooLong?: FamilyRule;
}

export type ObjectRules = Readonly<Record<string, FieldRule>>;

const UINT32_MAX = 4_294_967_295;

/** The spec's 255-byte description limit, refused with the family's number for the resource. */
export function descriptionRule(tooLong: FamilyRule = INVALID_VALUE): FieldRule {
  return { type: 'string', maxBytes: 255, refusals: { tooLong } };
}

/** The spec's 4096-byte metadata limit; the family's generic 100 unless the resource has its own. */
export function metadataRule(tooLong: FamilyRule = METADATA_TOO_LONG): FieldRule {
  return { type: 'string', maxBytes: 4096, refusals: { tooLong } };
}

/** A field's value refused by no rule of its own, or of the wrong JSON type: the family's 215. */
export function invalidField(field: string, message: string): ServiceError {
  return INVALID_VALUE.refuseField(field, message);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

function isUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

const DNS_LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/** A DNS name of letters, digits and hyphens, at most 253 bytes; a wildcard first label is allowed. */
export function isDnsName(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  const labels = host.replace(/\.$/, '').split('.');
  return labels.every((label, index) => DNS_LABEL.test(label) || (index === 0 && label === '*'));
}

/** `host:port`, port 1–65535, host a DNS name (IPv6 hosts in brackets). */
export function isHostport(value: string): boolean {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(value);
  if (!match) return false;
  const host = match[1] as string;
  if (!host.startsWith('[') && !isDnsName(host)) return false;
  const port = Number(match[2]);
  return port >= 1 && port <= 65_535;
}

function checkStringFormat(
  value: string,
  format: 'url' | 'hostport' | 'non-empty',
  path: string,
  invalid: FamilyRule,
): void {
  if (format === 'url' && !isUrl(value))
    throw invalid.refuseField(path, `must be an http(s) URL (found ${describe(value)})`);
  if (format === 'hostport' && !isHostport(value)) {
    throw invalid.refuseField(
      path,
      `must be host:port with a DNS name and a port from 1 to 65535 (found ${describe(value)})`,
    );
  }
  if (format === 'non-empty' && value.length === 0) throw invalid.refuseField(path, 'must not be empty');
}

function checkValue(value: unknown, rule: FieldRule, path: string): unknown {
  const invalid = rule.refusals?.invalid ?? INVALID_VALUE;
  if (value === null) {
    if (rule.nullable) return null;
    throw invalidField(path, `must not be null`);
  }
  switch (rule.type) {
    case 'string': {
      if (typeof value !== 'string') throw invalidField(path, `must be a string (found ${describe(value)})`);
      if (rule.maxBytes !== undefined) {
        const bytes = Buffer.byteLength(value, 'utf8');
        if (bytes > rule.maxBytes) {
          throw (rule.refusals?.tooLong ?? INVALID_VALUE).refuseField(
            path,
            `is ${bytes} bytes of UTF-8; at most ${rule.maxBytes}`,
          );
        }
      }
      if (rule.oneOf && !rule.oneOf.includes(value)) {
        throw invalid.refuseField(path, `must be one of ${rule.oneOf.join(', ')} (found ${describe(value)})`);
      }
      if (rule.format) checkStringFormat(value, rule.format, path, invalid);
      if (rule.pattern && !rule.pattern.regex.test(value)) {
        throw invalid.refuseField(path, `must be ${rule.pattern.expected} (found ${describe(value)})`);
      }
      return value;
    }
    case 'boolean':
      if (typeof value !== 'boolean')
        throw invalidField(path, `must be a boolean (found ${describe(value)})`);
      return value;
    case 'uint32': {
      const min = rule.min ?? 0;
      const max = rule.max ?? UINT32_MAX;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > UINT32_MAX) {
        throw invalidField(path, `must be an integer from ${min} to ${max} (found ${describe(value)})`);
      }
      if (value < min || value > max) {
        throw invalid.refuseField(
          path,
          `must be an integer from ${min} to ${max} (found ${describe(value)})`,
        );
      }
      return value;
    }
    case 'number': {
      const belowMin = rule.minExclusive ? (value as number) <= rule.min : (value as number) < rule.min;
      if (typeof value !== 'number' || !Number.isFinite(value) || belowMin || value > rule.max) {
        const range = rule.minExclusive
          ? `above ${rule.min} and at most ${rule.max}`
          : `from ${rule.min} to ${rule.max}`;
        throw invalidField(path, `must be a number ${range} (found ${describe(value)})`);
      }
      return value;
    }
    case 'string-list': {
      if (!Array.isArray(value))
        throw invalidField(path, `must be a list of strings (found ${describe(value)})`);
      for (const item of value) {
        if (typeof item !== 'string')
          throw invalidField(path, `must be a list of strings (found ${describe(item)})`);
        if (rule.format) checkStringFormat(item, rule.format, path, invalid);
      }
      if (rule.minItems !== undefined && value.length < rule.minItems) {
        throw invalid.refuseField(path, `must hold at least ${rule.minItems} item (found ${value.length})`);
      }
      return [...(value as string[])];
    }
    case 'string-map': {
      if (!isRecord(value)) throw invalidField(path, `must be a map of strings (found ${describe(value)})`);
      for (const [key, item] of Object.entries(value)) {
        if (typeof item !== 'string')
          throw invalidField(`${path}.${key}`, `must be a string (found ${describe(item)})`);
      }
      return { ...value };
    }
    case 'any':
      return value;
    case 'object': {
      const checked = checkObject(value, rule.fields, path);
      const keys = Object.keys(checked).length;
      if (rule.minKeys !== undefined && keys < rule.minKeys) {
        throw invalidField(path, `must set at least ${rule.minKeys} field`);
      }
      if (rule.maxKeys !== undefined && keys > rule.maxKeys) {
        throw invalidField(path, `must set at most ${rule.maxKeys} field (found ${keys})`);
      }
      return checked;
    }
  }
}

/**
 * Checks `value` against `rules` and returns a copy holding only the keys
 * present. `path` is the dotted prefix for nested objects ('' at the top).
 */
export function checkObject(value: unknown, rules: ObjectRules, path = ''): Record<string, unknown> {
  if (!isRecord(value)) {
    if (path === '')
      throw MALFORMED_JSON.refuse(`request body must be a JSON object (found ${describe(value)})`);
    throw invalidField(path, `must be an object (found ${describe(value)})`);
  }
  const prefix = path === '' ? '' : `${path}.`;
  for (const key of Object.keys(value).sort()) {
    if (!Object.hasOwn(rules, key)) {
      const known = Object.keys(rules).join(', ');
      throw UNKNOWN_FIELD.refuseField(
        `${prefix}${key}`,
        `unknown field (the fields taken here: ${known || 'none'})`,
      );
    }
  }
  const result: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(rules)) {
    const fieldPath = `${prefix}${key}`;
    if (!Object.hasOwn(value, key) || value[key] === undefined) {
      if (rule.required)
        throw (rule.refusals?.missing ?? INVALID_VALUE).refuseField(fieldPath, 'is required');
      continue;
    }
    result[key] = checkValue(value[key], rule, fieldPath);
  }
  return result;
}
