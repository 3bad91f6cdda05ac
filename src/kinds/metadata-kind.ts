import type { ApiRequest } from '../api/edge-api.js';
import { expectId, expectObject, optionalString } from './api-json.js';
import { normalizeDesiredFields } from './desired-common-fields.js';
import type { FieldRule, Kind } from './kind.js';
import type { KindName } from './kind-name.js';
import type { KindSchema } from './kind-schema.js';
import { listLiveObjects } from './list-live-objects.js';
import { buildLiveObject, withMetadata } from './live-object.js';
import type { LiveObject } from './live-state.js';
import { patchBody } from './patch-body.js';
import { rejectModule } from './reject-module.js';

/** The kind's own parts of an API object, in manifest shape; `description` and `metadata` are read for every kind. */
export interface MetadataKindReading {
  readonly spec: Readonly<Record<string, unknown>>;
  /** What the service computes (an address, a certificate's subject): shown, never compared. */
  readonly outputs?: Readonly<Record<string, unknown>>;
}

export interface MetadataKindOptions
  extends Pick<
      Kind,
      'title' | 'idPrefix' | 'schema' | 'uniqueKey' | 'accessDecision' | 'idTitle' | 'namedIds'
    >,
    Pick<Kind, 'checkEntry' | 'resolveSources' | 'emulator' | 'probe'> {
  readonly name: KindName;
  /** Collection path (`/ip_policy_rules`): list and create on it, update and delete below it. */
  readonly path: string;
  /** Key of the item list in a page. @default name */
  readonly listKey?: string;
  /**
   * Every field the planner compares, `description` and `metadata` included.
   * The create body carries all of them but `setAfterCreate` ones, in this
   * order; the PATCH body carries the changed ones with `onChange: 'update'`.
   */
  readonly fields: readonly FieldRule[];
  readonly schema: KindSchema;
  /** Reads the kind's own fields and outputs from one API object (list item or GET body). */
  readonly fromApi: (object: Readonly<Record<string, unknown>>) => MetadataKindReading;
  /**
   * Optional, pure: the kind's own fields of a desired spec made comparable
   * with the live one (canonical CIDR, PEM newline, defaults explicit).
   */
  readonly normalizeOwn?: (spec: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>>;
  /** Values the create body sends for fields the spec leaves out (`region: 'us'`). */
  readonly createDefaults?: Readonly<Record<string, unknown>>;
  /** What a PATCH sends to clear a field (default ""). */
  readonly clearedAs?: Readonly<Record<string, unknown>>;
  /**
   * Fields no PATCH clears, each with the request of its own that does
   * (Kind.clearRequest): a PATCH never carries them cleared.
   */
  readonly clearedBy?: Readonly<Record<string, (id: string) => ApiRequest>>;
}

/**
 * A kind whose resources edgesync creates, updates and deletes, and owns
 * through the metadata marker: a flat collection at `path` with no modules.
 */
export function metadataKind(options: MetadataKindOptions): Kind {
  const { name, path, fields, title } = options;
  const created = fields.filter((field) => field.setAfterCreate !== true).map((field) => field.name);
  const updatable = fields.filter((field) => field.onChange === 'update').map((field) => field.name);

  function fromApi(raw: unknown): LiveObject {
    const object = expectObject(raw, name, title);
    const own = options.fromApi(object);
    return buildLiveObject({
      kind: name,
      id: expectId(object, name),
      raw,
      createdAt: object.created_at,
      metadata: object.metadata,
      spec: { description: optionalString(object, 'description'), ...own.spec },
      ...(own.outputs === undefined ? {} : { outputs: own.outputs }),
    });
  }

  const { listKey = name, normalizeOwn, createDefaults = {}, clearedAs = {}, clearedBy = {} } = options;
  /** The changed fields a PATCH carries: not those cleared by a request of their own. */
  const patched = (changed: Readonly<Record<string, unknown>>): Record<string, unknown> => {
    const kept: Record<string, unknown> = { ...changed };
    for (const field of Object.keys(clearedBy))
      if (kept[field] === undefined || kept[field] === null) delete kept[field];
    return kept;
  };
  return {
    name,
    title,
    idPrefix: options.idPrefix,
    ownership: 'metadata',
    fields,
    modules: [],
    schema: options.schema,
    ...(options.idTitle === undefined ? {} : { idTitle: options.idTitle }),
    ...(options.namedIds === undefined ? {} : { namedIds: options.namedIds }),
    ...(options.uniqueKey === undefined ? {} : { uniqueKey: options.uniqueKey }),
    ...(options.accessDecision === undefined ? {} : { accessDecision: options.accessDecision }),
    ...(options.checkEntry === undefined ? {} : { checkEntry: options.checkEntry }),
    ...(options.resolveSources === undefined ? {} : { resolveSources: options.resolveSources }),
    readLive: (ctx) => listLiveObjects(ctx, { kind: name, path, listKey }, fromApi),
    fromApi,
    normalizeDesired: (spec) => normalizeDesiredFields(spec, normalizeOwn?.(spec) ?? {}),
    createRequest: (spec, metadata): ApiRequest => {
      const body: Record<string, unknown> = {};
      for (const field of created) body[field] = spec[field] ?? createDefaults[field];
      return { method: 'POST', path, body: withMetadata(body, metadata) };
    },
    updateRequest: (id, changed): ApiRequest => ({
      method: 'PATCH',
      path: `${path}/${id}`,
      body: patchBody(patched(changed), updatable, clearedAs),
    }),
    clearRequest: (id, field) => (Object.hasOwn(clearedBy, field) ? clearedBy[field]?.(id) : undefined),
    deleteRequest: (id): ApiRequest => ({ method: 'DELETE', path: `${path}/${id}` }),
    moduleRequest: rejectModule(name),
    moduleReadRequest: rejectModule(name),
    ...(options.emulator === undefined ? {} : { emulator: options.emulator }),
    ...(options.probe === undefined ? {} : { probe: options.probe }),
  };
}
