/** A JSON Schema (draft-07) node, as plain data. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * A kind's part of the manifest schema. `npm run schemas` assembles the parts
 * of every registered kind into schemas/manifest.schema.json, the file
 * editors and the loader read; a test fails when the two differ.
 */
/** What schema assembly needs of a Kind (not Kind itself, which holds a KindSchema: no import cycle). */
interface SchemaOwner {
  readonly name: string;
  readonly schema: KindSchema;
}

export interface KindSchema {
  /** What the collection holds, for people: "IP policy rules". */
  readonly collection: string;
  /** The definition each entry of the collection is checked against; one of `definitions`. */
  readonly entry: string;
  /** Definitions by name; `#/definitions/NAME` references resolve in the assembled schema. */
  readonly definitions: Readonly<Record<string, JsonSchema>>;
}

/** The published address of the manifest schema: its `$id`, and what modelines may point at. */
export const MANIFEST_SCHEMA_ID =
  'https://raw.githubusercontent.com/edgesync/edgesync/main/schemas/manifest.schema.json';

/** `protect`, the same on every kind that edgesync creates. */
export const PROTECT_SCHEMA: JsonSchema = {
  type: 'boolean',
  default: false,
  description: 'When true, a plan that would delete or replace this resource fails instead.',
};

/** `metadata`, the same on every metadata-owned kind. */
export const METADATA_SCHEMA: JsonSchema = {
  type: 'object',
  description:
    'Your machine-readable data, a mapping. edgesync sends it as compact JSON with keys sorted, plus its ownership marker under the reserved key "edgesync" (which you may not set); the whole JSON must fit in 4096 bytes.',
};

/**
 * A secret-capable value: a literal, `{ env: NAME }` or `{ file: PATH }`
 * (src/manifest/resolve-references.ts resolves them). `what` starts the description.
 */
export function secretValueSchema(what: string): JsonSchema {
  return {
    type: ['string', 'object'],
    description: `${what} A literal string, { env: NAME } to read an environment variable, or { file: PATH } to read a file relative to this manifest (one trailing newline removed).`,
    properties: {
      env: {
        type: 'string',
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        description: 'Name of the environment variable holding the value.',
      },
      file: {
        type: 'string',
        minLength: 1,
        description:
          'Path of a file holding the value, relative to this manifest; may not leave the manifest root unless --allow-outside-root.',
      },
    },
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
  };
}

const SHARED_DEFINITIONS: Readonly<Record<string, JsonSchema>> = {
  name: {
    type: 'string',
    pattern: '^[a-z0-9]([a-z0-9._-]{0,62}[a-z0-9])?$',
    description:
      'Entry name: 1 to 64 characters of a-z, 0-9, ".", "_" and "-", starting and ending with a letter or digit. It may not look like an ID (a known ID prefix such as ca_), since values with an ID prefix are read as IDs.',
  },
};

/**
 * The manifest schema of `kinds`: one collection per kind, in registry
 * order (the exporter writes keys in the schema's order), and every kind's
 * definitions after the shared ones. Two kinds may not define the same name.
 */
export function assembleManifestSchema(kinds: readonly SchemaOwner[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    version: { const: 1, description: 'Manifest format version; must be 1.' },
  };
  const definitions: Record<string, JsonSchema> = { ...SHARED_DEFINITIONS };
  for (const kind of kinds) {
    const { collection, entry, definitions: own } = kind.schema;
    if (!Object.hasOwn(own, entry)) {
      throw new Error(`${kind.name}: schema entry "${entry}" is not among its definitions`);
    }
    properties[kind.name] = {
      type: ['object', 'null'],
      description: `${collection}, keyed by entry name (unique per kind across all files). null or empty means none.`,
      propertyNames: { $ref: '#/definitions/name' },
      additionalProperties: { $ref: `#/definitions/${entry}` },
    };
    for (const [name, definition] of Object.entries(own)) {
      if (Object.hasOwn(definitions, name)) {
        throw new Error(`${kind.name}: schema definition "${name}" is already defined by another kind`);
      }
      definitions[name] = definition;
    }
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: MANIFEST_SCHEMA_ID,
    title: 'edgesync manifest',
    description:
      'One edgesync manifest file: a mapping with version 1 and collections of resources keyed by name. A directory of manifests merges into one desired state.',
    type: 'object',
    additionalProperties: false,
    required: ['version'],
    properties,
    definitions,
  };
}

/** The plan schema with its kind enum set to the names of `kinds`, in registry order. */
export function withPlanKindEnum(
  planSchema: Readonly<Record<string, unknown>>,
  kinds: readonly SchemaOwner[],
): Record<string, unknown> {
  const definitions = (planSchema.definitions ?? {}) as Record<string, unknown>;
  return { ...planSchema, definitions: { ...definitions, kind: { enum: kinds.map((kind) => kind.name) } } };
}
