import type { ErrorObject } from 'ajv';
import { closest, distance } from 'fastest-levenshtein';
import { pointerOf, pointerTokens } from '../json-pointer.js';
import { dottedPath, isSensitivePath } from './field-path.js';
import { locationIn } from './file-positions.js';
import { ManifestError } from './manifest-error.js';
import type { ParsedManifest } from './parsed-manifest.js';
import type { SourceLocation } from './source-location.js';

/** A schema problem with the pointer of the field it is about, so callers can tell which entry is invalid. */
export interface LocatedSchemaError {
  readonly pointer: string;
  readonly error: ManifestError;
}

/** The location of `pointer`, or of its nearest ancestor that has one (values under an alias have none). */
export function locationOf(manifest: ParsedManifest, pointer: string): SourceLocation {
  return locationIn(manifest.positions, pointer);
}

/**
 * Turns ajv's errors into messages at the YAML position a person edits: the
 * offending key for unknown fields and bad names, the parent for missing
 * fields, the field itself otherwise.
 */
export function mapSchemaErrors(
  errors: readonly ErrorObject[],
  manifest: ParsedManifest,
  unquoted: ReadonlySet<string>,
): LocatedSchemaError[] {
  const typeFailed = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  // A misspelled required field is one mistake: its "did you mean" stands for the "missing" error too.
  const suggested = new Set(
    errors.flatMap((e) => {
      const suggestion = e.keyword === 'additionalProperties' ? suggestionFor(e) : undefined;
      return suggestion === undefined ? [] : [`${e.instancePath}\u0000${suggestion}`];
    }),
  );
  const mapped: LocatedSchemaError[] = [];
  for (const error of errors) {
    // `if` only repeats its `then` branch's errors; `propertyNames` repeats the name's own error.
    if (error.keyword === 'if' || error.keyword === 'propertyNames') continue;
    if (
      error.keyword === 'required' &&
      suggested.has(
        `${error.instancePath}\u0000${String((error.params as Record<string, unknown>).missingProperty)}`,
      )
    )
      continue;
    if (error.keyword !== 'type' && typeFailed.has(error.instancePath) && error.propertyName === undefined)
      continue;
    const located = mapOne(error, manifest, unquoted);
    if (located !== undefined) mapped.push(located);
  }
  return mapped;
}

/** `unquoted`: the fields whose values a message never quotes (unquotedFieldNames of the registry in use). */
function mapOne(
  error: ErrorObject,
  manifest: ParsedManifest,
  unquoted: ReadonlySet<string>,
): LocatedSchemaError | undefined {
  const parentSegments = pointerTokens(error.instancePath);
  const at = (segments: readonly string[], message: string): LocatedSchemaError => {
    const pointer = pointerOf(segments);
    return {
      pointer,
      error: new ManifestError(
        'schema',
        locationOf(manifest, pointer),
        dottedPath(manifest.data, segments),
        message,
      ),
    };
  };

  if (error.propertyName !== undefined) {
    return at([...parentSegments, error.propertyName], nameMessage(error.propertyName));
  }
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const suggestion = suggestionFor(error);
      const allowed = knownFields(error).join(', ');
      return at(
        [...parentSegments, extra],
        suggestion === undefined
          ? `unknown field "${extra}"; expected one of: ${allowed}`
          : `unknown field "${extra}"; did you mean \`${suggestion}\`? (expected one of: ${allowed})`,
      );
    }
    case 'required':
      return at(parentSegments, `missing required field "${String(params.missingProperty)}"`);
    default:
      return at(parentSegments, valueMessage(error, parentSegments, unquoted));
  }
}

/** The field names the schema allows where an unknown one was found: that kind's (or module's) fields. */
function knownFields(error: ErrorObject): string[] {
  return Object.keys(
    ((error.parentSchema as Record<string, unknown> | undefined)?.properties as object | undefined) ?? {},
  );
}

/**
 * The known field nearest to an unknown one by edit distance, when it is
 * close enough to be a typo (`cdir` → `cidr`, `min_versoin` → `min_version`):
 * at most 2 edits, or a third of the known name for longer names, and fewer
 * edits than the unknown name has characters (so `x` suggests nothing).
 */
function suggestionFor(error: ErrorObject): string | undefined {
  const extra = String((error.params as Record<string, unknown>).additionalProperty);
  const known = knownFields(error);
  if (known.length === 0) return undefined;
  const nearest = closest(extra, known);
  const edits = distance(extra, nearest);
  return edits <= Math.max(2, Math.floor(nearest.length / 3)) && edits < extra.length ? nearest : undefined;
}

const NAME_RULE =
  'a name is 1 to 64 characters of a-z, 0-9, ".", "_" and "-", starting and ending with a letter or digit';

function nameMessage(name: string): string {
  return `invalid name "${name}": ${NAME_RULE}`;
}

function valueMessage(
  error: ErrorObject,
  segments: readonly string[],
  unquoted: ReadonlySet<string>,
): string {
  const params = error.params as Record<string, unknown>;
  const sensitive = isSensitivePath(segments, unquoted);
  const found = sensitive ? '' : ` (found ${describeValue(error.data)})`;
  switch (error.keyword) {
    case 'type': {
      const expected = ([] as unknown[]).concat(params.type).map(String);
      const hint =
        typeof error.data === 'number' && expected.includes('string')
          ? `; quote it: "${Number.isInteger(error.data) ? error.data.toFixed(1) : String(error.data)}"`
          : '';
      return `expected ${expected.map(article).join(' or ')}${sensitive ? '' : ` (found ${describeValue(error.data)})`}${hint}`;
    }
    case 'enum':
      return `expected one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}${found}`;
    case 'const':
      return `expected ${JSON.stringify(params.allowedValue)}${found}`;
    case 'pattern':
      return patternMessage(String(params.pattern), segments) + found;
    case 'maxLength':
      return `at most ${String(params.limit)} characters${found}`;
    case 'minLength':
      return `must not be empty`;
    case 'minItems':
      return `expected at least ${String(params.limit)} item(s)`;
    case 'uniqueItems':
      return `items ${String(params.j)} and ${String(params.i)} are the same; list each value once`;
    case 'minimum':
    case 'maximum':
      return `expected ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${String(params.limit)}${found}`;
    case 'minProperties':
    case 'maxProperties':
      return 'expected exactly one of { env: NAME } or { file: PATH }';
    default:
      return `${error.message ?? 'is invalid'}${found}`;
  }
}

function patternMessage(pattern: string, segments: readonly string[]): string {
  const idPrefix = /^\^([a-z]+_)\[/.exec(pattern)?.[1];
  if (idPrefix !== undefined) {
    const notManaged =
      idPrefix === 'ipp_' || idPrefix === 'ec_'
        ? ` (${idPrefix === 'ipp_' ? 'IP policies' : 'endpoint configurations'} are not managed by edgesync, so names cannot be used)`
        : '';
    return `expected an ID starting with ${idPrefix}${notManaged}`;
  }
  if (segments.at(-2) === 'hostports') return 'expected hostname:port, e.g. web.example.com:443';
  if (segments.at(-1) === 'env') return 'expected an environment variable name (letters, digits, _)';
  return `must match ${pattern}`;
}

function article(type: string): string {
  switch (type) {
    case 'object':
      return 'a mapping';
    case 'array':
      return 'a list';
    case 'null':
      return 'null';
    case 'integer':
      return 'an integer';
    default:
      return `a ${type}`;
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return String(value);
}
