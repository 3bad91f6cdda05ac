import PQueue from 'p-queue';
import { ApiError } from '../../api/api-error.js';
import type { ApiRequest } from '../../api/edge-api.js';
import { expectId, expectObject } from '../api-json.js';
import type { EntryProblem, Kind, ModuleRule, ModuleTarget, ReadLiveContext } from '../kind.js';
import { KindError } from '../kind-error.js';
import type { KindName } from '../kind-name.js';
import type { KindSchema } from '../kind-schema.js';
import { buildLiveObject } from '../live-object.js';
import type { LiveObject } from '../live-state.js';
import { isNotFound } from '../not-found-code.js';

/** One module of an edge whose modules only are managed: its rule and the conversions to and from the API. */
export interface EdgeModule {
  readonly rule: ModuleRule;
  /** Manifest-shaped module from a GET/PUT response; null when unset. */
  readonly fromApi: (raw: unknown) => Record<string, unknown> | null;
  /** Manifest-shaped value (null: remove, undefined: leave alone) with defaults made explicit. */
  readonly normalizeDesired: (value: unknown) => unknown;
  /** The PUT body for a manifest-shaped value (references resolved). */
  readonly putBody: (value: Readonly<Record<string, unknown>>) => Record<string, unknown>;
  /** Optional, pure: rules on the module's manifest value (at `pointer` in the entry) that the schema cannot express. */
  readonly check?: (value: unknown, pointer: string) => readonly EntryProblem[];
}

export interface ModuleEdgeKindOptions
  extends Pick<Kind, 'emulator' | 'namedIds' | 'probe' | 'checkWithLive'> {
  /** The API cannot list module-only edges: `export` names the ones to read with this flag (Kind.exportIdFlag). */
  readonly exportIdFlag: `--${string}`;
  readonly name: KindName;
  readonly title: string;
  readonly idPrefix: string;
  readonly schema: KindSchema;
  /** `/edges/tcp`: modules live at `{path}/{id}/{module}`. */
  readonly path: string;
  readonly modules: readonly EdgeModule[];
  /** Optional, pure: rules across the entry's modules, beside each module's own `check`. */
  readonly checkModules?: (value: Readonly<Record<string, unknown>>) => readonly EntryProblem[];
  /**
   * Module GETs in flight at once per kind; the client's request budget bounds the rate.
   * @default 8
   */
  readonly concurrency?: number;
}

/**
 * A kind of existing edges (TCP, TLS) whose modules only are managed: read
 * by one GET per module of each edge the manifests name, written by PUT and
 * DELETE on the module's path. An edge the service does not know is left
 * out of the result; the live-state reader reports it.
 */
export function moduleEdgeKind(options: ModuleEdgeKindOptions): Kind {
  const { name, path, modules } = options;
  const moduleByName = new Map(modules.map((module) => [module.rule.name, module]));

  function moduleOf(target: ModuleTarget, module: string): EdgeModule {
    const found = moduleByName.get(module);
    if (found !== undefined) return found;
    throw new KindError('unknown_module', `${name} has no module "${module}"`, { kind: name, id: target.id });
  }

  function unsupported(operation: string): never {
    throw new KindError(
      'unsupported_operation',
      `${name} are not ${operation}d by edgesync: only their modules are managed`,
      {
        kind: name,
      },
    );
  }

  function fromApi(raw: unknown): LiveObject {
    const object = expectObject(raw, name, options.title);
    const spec: Record<string, unknown> = {};
    for (const module of modules) spec[module.rule.name] = module.fromApi(object[module.rule.name]);
    return buildLiveObject({ kind: name, id: expectId(object, name), raw, spec });
  }

  /**
   * Whether the edge itself exists, by the status of the family's edge read
   * (`GET {path}/{id}`): asked only when every module read was 404, the one
   * case where "no modules" and "no edge" look alike.
   */
  async function edgeExists(ctx: ReadLiveContext, id: string, signal: AbortSignal): Promise<boolean> {
    try {
      await ctx.api.request({ method: 'GET', path: `${path}/${id}` }, { signal, kind: name });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw refusedId(error, id);
    }
  }

  /**
   * A GET carries nothing but its path: a 400 refuses the ID in it (the
   * family's "The ID … is invalid", for one of the wrong kind or shape). It
   * is no "not set" and no "gone": the read fails, naming the ID, so the
   * caller can point at the manifest line that gave it.
   */
  function refusedId(error: unknown, id: string): unknown {
    if (!(error instanceof ApiError) || error.status !== 400) return error;
    return new KindError(
      'id_refused',
      `the service refused the ${options.title} ID ${id} (HTTP 400: ${error.msg || error.message})`,
      { kind: name, id, cause: error },
    );
  }

  /**
   * A module read's 404 means "not set" whatever its body says, and so does
   * a 200 with null (a service may answer either: docs/emulator.md); the spec
   * names no error codes to tell an unset module from a missing edge. When
   * every module is unset, the edge read decides whether the edge is there.
   * A module write to a missing edge fails with 404 too, so nothing is lost.
   */
  async function readEdge(ctx: ReadLiveContext, id: string, signal: AbortSignal): Promise<LiveObject | null> {
    const assembled: Record<string, unknown> = { id };
    let unset = 0;
    await Promise.all(
      modules.map(async (module) => {
        const moduleName = module.rule.name;
        try {
          const response = await ctx.api.request(
            { method: 'GET', path: `${path}/${id}/${moduleName}` },
            { signal, kind: name },
          );
          assembled[moduleName] = response.body;
        } catch (error) {
          if (!isNotFound(error)) throw refusedId(error, id);
          assembled[moduleName] = null;
          unset += 1;
        }
      }),
    );
    if (unset === modules.length && !(await edgeExists(ctx, id, signal))) return null;
    return fromApi(assembled);
  }

  async function readLive(ctx: ReadLiveContext): Promise<readonly LiveObject[]> {
    const stop = new AbortController();
    const signal = ctx.signal === undefined ? stop.signal : AbortSignal.any([ctx.signal, stop.signal]);
    const queue = new PQueue({ concurrency: options.concurrency ?? 8 });
    const ids = [...new Set(ctx.ids)];
    try {
      // The signal is checked when a read starts rather than handed to the queue: the queue would
      // add a listener to it per queued ID (thousands on one signal) until the read starts.
      const results = await Promise.all(
        ids.map((id) =>
          queue.add(() => {
            signal.throwIfAborted();
            return readEdge(ctx, id, signal);
          }),
        ),
      );
      return results.filter((object): object is LiveObject => object !== null && object !== undefined);
    } finally {
      // One failed read fails the kind: stop the reads still queued or in flight.
      stop.abort();
      queue.clear();
    }
  }

  return {
    name,
    title: options.title,
    idPrefix: options.idPrefix,
    ownership: 'modules-only',
    exportIdFlag: options.exportIdFlag,
    fields: [],
    modules: modules.map((module) => module.rule),
    checkEntry: (value) => [
      ...modules.flatMap((module) => module.check?.(value[module.rule.name], `/${module.rule.name}`) ?? []),
      ...(options.checkModules?.(value) ?? []),
    ],
    schema: options.schema,
    readLive,
    fromApi,
    normalizeDesired: (spec) => {
      const normalized: Record<string, unknown> = { ...spec };
      for (const module of modules) {
        const key = module.rule.name;
        if (key in spec) normalized[key] = module.normalizeDesired(spec[key]);
      }
      return normalized;
    },
    createRequest: () => unsupported('create'),
    updateRequest: () => unsupported('update'),
    deleteRequest: () => unsupported('delete'),
    moduleRequest: (target, module, value): ApiRequest => {
      const edgeModule = moduleOf(target, module);
      const modulePath = `${path}/${target.id}/${module}`;
      if (value === null) return { method: 'DELETE', path: modulePath };
      return { method: 'PUT', path: modulePath, body: edgeModule.putBody(value) };
    },
    moduleReadRequest: (target, module): ApiRequest => {
      moduleOf(target, module);
      return { method: 'GET', path: `${path}/${target.id}/${module}` };
    },
    ...(options.namedIds === undefined ? {} : { namedIds: options.namedIds }),
    ...(options.checkWithLive === undefined ? {} : { checkWithLive: options.checkWithLive }),
    ...(options.emulator === undefined ? {} : { emulator: options.emulator }),
    ...(options.probe === undefined ? {} : { probe: options.probe }),
  };
}
