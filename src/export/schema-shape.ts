import { isRecord } from '../json-value.js';

/**
 * What the exporter needs of one place in the manifest schema: the order
 * its keys are documented in (exports write keys in that order) and which
 * keys may not be left out. Read from the committed schema, so the export
 * follows the schema when it changes.
 */
export interface SchemaShape {
  readonly keys: readonly string[];
  readonly required: ReadonlySet<string>;
  /** Shape of the value under a key (objects, and array items), when the schema describes one. */
  child(key: string): SchemaShape | undefined;
}

type JsonSchema = Readonly<Record<string, unknown>>;

/** The shape of one entry of collection `kind` (`ip_policy_rules`), or undefined when the schema has no such collection. */
export function entryShape(schema: JsonSchema, kind: string): SchemaShape | undefined {
  const collection = propertyOf(schema, schema, kind);
  if (collection === undefined) return undefined;
  const entry = resolve(schema, collection.additionalProperties);
  return entry === undefined ? undefined : shapeOf(schema, entry);
}

function shapeOf(root: JsonSchema, node: JsonSchema): SchemaShape {
  const properties = isRecord(node.properties) ? node.properties : {};
  const required = new Set<string>(stringsOf(node.required));
  // `if: not id, then: required [hostports]`: keep what any branch may require.
  const then = isRecord(node.then) ? node.then : undefined;
  for (const key of stringsOf(then?.required)) required.add(key);
  return {
    keys: Object.keys(properties),
    required,
    child: (key) => {
      const property = propertyOf(root, node, key);
      if (property === undefined) return undefined;
      const items = resolve(root, property.items);
      const target = items ?? property;
      return isRecord(target.properties) ? shapeOf(root, target) : undefined;
    },
  };
}

function propertyOf(root: JsonSchema, node: JsonSchema, key: string): JsonSchema | undefined {
  const properties = isRecord(node.properties) ? node.properties : undefined;
  return resolve(root, properties?.[key]);
}

/** Follows a local `$ref` (`#/definitions/route`). */
function resolve(root: JsonSchema, node: unknown): JsonSchema | undefined {
  if (!isRecord(node)) return undefined;
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return node;
  let target: unknown = root;
  for (const segment of ref.slice(2).split('/')) target = isRecord(target) ? target[segment] : undefined;
  return isRecord(target) ? target : undefined;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
