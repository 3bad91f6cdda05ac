import type { ApiRequest, ApiResponse, EdgeApi } from '../api/edge-api.js';
import { canonicalJson } from '../canonical-json.js';
import { isRecord } from '../json-value.js';
import type { Kind, NamedIds } from '../kinds/kind.js';
import { isNotFound } from '../kinds/not-found-code.js';
import { type DoctorLine, line } from './doctor-line.js';
import { ProbeLedger } from './probe-ledger.js';

export interface WriteProbeOptions {
  readonly api: EdgeApi;
  readonly kinds: readonly Kind[];
  /** A short random word of this run: in every description and in the probe's marker. */
  readonly word: string;
  /** An edge whose modules are probed and put back as found (`--probe-edge`). */
  readonly probeEdge?: string;
  /** SIGINT: stop probing, clean up, report. */
  readonly signal: AbortSignal;
  readonly onLine: (line: DoctorLine) => void;
}

export interface WriteProbeResult {
  readonly interrupted: boolean;
  /** What cleaning up could not remove or put back, for people; empty when the account is as found. */
  readonly leftBehind: readonly string[];
}

/** The probe's own marker in `metadata`: not edgesync's, so no plan of any owner ever takes a probe object for its own. */
export function probeMarker(word: string): string {
  return JSON.stringify({ edgesync_doctor: { run: word } });
}

/**
 * `--probe-writes`: makes the resources the probes need (a throwaway IP
 * policy), then per kind that supplies a probe object: create, read,
 * update, the undocumented behaviours it can show (an emptied list, unset
 * modules), then, on `--probe-edge`, each module of that edge put, read,
 * deleted and put back; last, every object deleted and read as gone. Each
 * write's undo is in the ledger before the write leaves, and the ledger is
 * run however the probe ends.
 */
export async function probeWrites(options: WriteProbeOptions): Promise<WriteProbeResult> {
  const { api, word, signal } = options;
  const ledger = new ProbeLedger();
  const marker = probeMarker(word);
  const description = `edgesync doctor probe ${word}`;
  const ids = new Map<string, string>();
  const emit = options.onLine;
  // A request already on the wire is answered, not cut: a create whose answer was lost would leave an object unknown.
  const send = (request: ApiRequest): Promise<ApiResponse> => {
    signal.throwIfAborted();
    return api.request(request, { stopBeforeSending: signal });
  };
  let interrupted = false;
  try {
    for (const named of neededResources(options.kinds)) {
      const path = named.path as string;
      const created = await send({ method: 'POST', path, body: { description, metadata: marker } });
      const id = idOf(created.body);
      if (id !== undefined)
        ledger.push({
          key: id,
          request: { method: 'DELETE', path: `${path}/${id}` },
          what: `${named.title} ${id}`,
        });
      const holds = id?.startsWith(named.prefix) === true;
      emit(
        line(
          `create.${named.prefix}`,
          `POST ${path} creates one ${named.title} (the probe’s own)`,
          holds
            ? `HTTP ${created.status}, ${id}`
            : `HTTP ${created.status} without an id of prefix ${named.prefix}`,
          holds ? 'holds' : 'differs',
        ),
      );
      if (id === undefined) return { interrupted, leftBehind: await ledger.undoAll(api) };
      ids.set(named.prefix, id);
    }
    const made: { kind: Kind; id: string }[] = [];
    for (const kind of options.kinds) {
      const object = kind.probe?.object;
      if (object === undefined) continue;
      const spec = object.spec(word, ids);
      const desired = kind.normalizeDesired(spec);
      const created = await send(kind.createRequest(desired, marker));
      const id = idOf(created.body);
      if (id === undefined) {
        emit(
          line(
            `create.${kind.name}`,
            `one ${kind.title} is created as sent`,
            `HTTP ${created.status} without an id`,
            'differs',
          ),
        );
        continue;
      }
      const remove = kind.deleteRequest(id);
      ledger.push({ key: id, request: remove, what: `${kind.title} ${id}` });
      made.push({ kind, id });
      ids.set(kind.idPrefix, id);
      const metadata = isRecord(created.body) ? created.body.metadata : undefined;
      emit(
        sameLine(
          `create.${kind.name}`,
          `POST creates one ${kind.title} as sent, metadata included (edgesync's marker lives there)`,
          kind,
          created.body,
          desired,
          Object.keys(spec),
          metadata === marker ? undefined : 'metadata',
        ),
      );
      const readPath = remove.path;
      const read = await send({ method: 'GET', path: readPath });
      emit(
        sameLine(
          `read.${kind.name}`,
          `GET ${pathShape(readPath, id)} reads the ${kind.title} as created`,
          kind,
          read.body,
          desired,
          Object.keys(spec),
        ),
      );
      const changed = object.update(word);
      await send(kind.updateRequest(id, changed));
      const updated = await send({ method: 'GET', path: readPath });
      emit(
        sameLine(
          `update.${kind.name}`,
          `PATCH changes only the fields it names (${Object.keys(changed).join(', ')})`,
          kind,
          updated.body,
          kind.normalizeDesired({ ...spec, ...changed }),
          Object.keys(spec),
        ),
      );
      if (object.emptiedList !== undefined)
        emit(await emptiedListLine(kind, id, object.emptiedList, send, readPath));
      for (const module of object.unsetModules ?? []) {
        for (const probed of await unsetModuleLines(kind, id, module, send)) emit(probed);
      }
    }
    if (options.probeEdge !== undefined)
      await probeEdgeModules(options, options.probeEdge, ids, ledger, send);
    for (const { kind, id } of made.reverse()) {
      const remove = kind.deleteRequest(id);
      const deleted = await send(remove);
      ledger.settled(id);
      const gone = await statusOf(() => send({ method: 'GET', path: remove.path }));
      const holds = deleted.status === 204 && gone === 404;
      emit(
        line(
          `delete.${kind.name}`,
          `DELETE answers 204, and the ${kind.title} reads as gone (404)`,
          `HTTP ${deleted.status}, then GET ${gone}`,
          holds ? 'holds' : 'differs',
        ),
      );
    }
  } catch (error) {
    if (signal.aborted) interrupted = true;
    else
      emit(
        line('probe.error', 'every probe request is answered as the spec says', messageOf(error), 'differs'),
      );
  }
  const leftBehind = await ledger.undoAll(api);
  return { interrupted, leftBehind };
}

/** The resources no kind creates that some probe object needs (each once), in registry order. */
function neededResources(kinds: readonly Kind[]): NamedIds[] {
  const byPrefix = new Map<string, NamedIds>();
  for (const kind of kinds) {
    for (const named of kind.probe?.object?.needs ?? []) {
      if (named.path !== undefined && !byPrefix.has(named.prefix)) byPrefix.set(named.prefix, named);
    }
  }
  return [...byPrefix.values()];
}

/** Whether `body` reads as `desired` on `fields` (metadata aside, which `odd` reports by name). */
function sameLine(
  check: string,
  assumption: string,
  kind: Kind,
  body: unknown,
  desired: Readonly<Record<string, unknown>>,
  fields: readonly string[],
  odd?: string,
): DoctorLine {
  let spec: Readonly<Record<string, unknown>>;
  try {
    spec = kind.fromApi(body).spec;
  } catch (error) {
    return line(check, assumption, `the answer does not read: ${messageOf(error)}`, 'differs');
  }
  const differing = fields.filter(
    (field) =>
      field !== 'metadata' && canonicalJson(spec[field] ?? null) !== canonicalJson(desired[field] ?? null),
  );
  if (odd !== undefined) differing.push(odd);
  return differing.length === 0
    ? line(check, assumption, 'as sent', 'holds')
    : line(check, assumption, `differs in ${differing.join(', ')}`, 'differs');
}

/** An emptied list field: cleared (edgesync's assumption) or ignored (it could never converge). */
async function emptiedListLine(
  kind: Kind,
  id: string,
  field: string,
  send: (request: ApiRequest) => Promise<ApiResponse>,
  readPath: string,
): Promise<DoctorLine> {
  const check = 'variant.empty-list';
  const assumption = `a PATCH with "${field}": [] empties the ${kind.title}'s ${field} (empty-list=clears)`;
  await send(kind.updateRequest(id, { [field]: [] }));
  const read = await send({ method: 'GET', path: readPath });
  const value = kind.fromApi(read.body).spec[field];
  if (Array.isArray(value) && value.length === 0)
    return line(check, assumption, 'emptied', 'holds', 'clears');
  return line(
    check,
    assumption,
    `ignored: ${field} still holds ${JSON.stringify(value)}; edgesync empties a list this way and would never converge (unsupported)`,
    'differs',
    'ignored',
  );
}

/** GET and DELETE of a module never set: 404 or an empty success, both of which edgesync takes as "not set". */
async function unsetModuleLines(
  kind: Kind,
  id: string,
  module: string,
  send: (request: ApiRequest) => Promise<ApiResponse>,
): Promise<DoctorLine[]> {
  const target = { id };
  const read = kind.moduleReadRequest(target, module);
  const remove = kind.moduleRequest(target, module, null);
  return [
    variantLine(
      `variant.unset-module.get.${kind.name}.${module}`,
      `GET of an unset ${module} answers 404 or 200 with nothing (unset-module)`,
      await answerOf(() => send(read)),
    ),
    variantLine(
      `variant.unset-module.delete.${kind.name}.${module}`,
      `DELETE of an unset ${module} answers 404 or 200/204 (unset-module)`,
      await answerOf(() => send(remove)),
    ),
  ];
}

type Answer = { readonly status: number; readonly body: unknown } | { readonly error: unknown };

async function answerOf(request: () => Promise<ApiResponse>): Promise<Answer> {
  try {
    const response = await request();
    return { status: response.status, body: response.body };
  } catch (error) {
    if (isNotFound(error)) return { status: 404, body: undefined };
    return { error };
  }
}

function variantLine(check: string, assumption: string, answer: Answer): DoctorLine {
  if ('error' in answer) return line(check, assumption, messageOf(answer.error), 'differs');
  if (answer.status === 404) return line(check, assumption, 'HTTP 404', 'holds', 'not-found');
  const empty =
    answer.body === undefined ||
    answer.body === null ||
    (isRecord(answer.body) && Object.keys(answer.body).length === 0);
  return empty
    ? line(check, assumption, `HTTP ${answer.status} with nothing`, 'holds', 'null-ok')
    : line(check, assumption, `HTTP ${answer.status} with a module that was never set`, 'differs');
}

/** `--probe-edge`: each module the edge's kind supplies a value for, put, read, deleted and put back as found. */
async function probeEdgeModules(
  options: WriteProbeOptions,
  edgeId: string,
  ids: ReadonlyMap<string, string>,
  ledger: ProbeLedger,
  send: (request: ApiRequest) => Promise<ApiResponse>,
): Promise<void> {
  const emit = options.onLine;
  const probed = options.kinds.filter((kind) => kind.probe?.moduleValues !== undefined);
  const kind = probed.find((candidate) => edgeId.startsWith(candidate.idPrefix));
  const assumption = 'the edge named by --probe-edge exists';
  if (kind === undefined) {
    emit(
      line(
        'edge.found',
        assumption,
        `${edgeId} has none of the prefixes ${probed.map((each) => each.idPrefix).join(', ')}`,
        'differs',
      ),
    );
    return;
  }
  const [found] = await kind.readLive({ api: options.api, ids: [edgeId], signal: options.signal });
  if (found === undefined) {
    emit(line('edge.found', assumption, `no ${kind.title} ${edgeId} in the account`, 'differs'));
    return;
  }
  emit(line('edge.found', assumption, `${kind.title} ${edgeId}`, 'holds'));
  const values = kind.probe?.moduleValues?.(ids) ?? {};
  const target = { id: edgeId };
  for (const [module, value] of Object.entries(values)) {
    const before = (found.spec[module] ?? null) as Readonly<Record<string, unknown>> | null;
    const putBack = kind.moduleRequest(target, module, before);
    const key = `${edgeId}/${module}`;
    ledger.push({ key, request: putBack, what: `${module} of ${kind.title} ${edgeId}, as found` });
    const desired = kind.normalizeDesired({ [module]: value })[module];
    await send(kind.moduleRequest(target, module, desired as Readonly<Record<string, unknown>>));
    const read = await send(kind.moduleReadRequest(target, module));
    emit(
      moduleLine(
        `module.put.${kind.name}.${module}`,
        `a PUT of ${module} reads back as put`,
        kind,
        edgeId,
        module,
        read.body,
        desired,
      ),
    );
    const removed = await answerOf(() => send(kind.moduleRequest(target, module, null)));
    emit(
      line(
        `module.delete.${kind.name}.${module}`,
        `DELETE removes ${module}`,
        'error' in removed ? messageOf(removed.error) : `HTTP ${removed.status}`,
        'error' in removed || removed.status >= 300 ? 'differs' : 'holds',
      ),
    );
    emit(
      variantLine(
        `variant.unset-module.get.${kind.name}.${module}`,
        `GET of an unset ${module} answers 404 or 200 with nothing (unset-module)`,
        await answerOf(() => send(kind.moduleReadRequest(target, module))),
      ),
    );
    const restored = await answerOf(() => send(putBack));
    ledger.settled(key);
    const after = await answerOf(() => send(kind.moduleReadRequest(target, module)));
    const afterValue =
      'error' in after || after.status === 404 ? null : moduleValueOf(kind, edgeId, module, after.body);
    const asFound = canonicalJson(afterValue ?? null) === canonicalJson(before ?? null);
    emit(
      line(
        `module.restore.${kind.name}.${module}`,
        `${module} is put back as found`,
        'error' in restored ? messageOf(restored.error) : asFound ? 'as found' : 'not as found',
        !('error' in restored) && asFound ? 'holds' : 'differs',
      ),
    );
  }
}

function moduleValueOf(kind: Kind, id: string, module: string, body: unknown): unknown {
  return kind.fromApi({ id, [module]: body }).spec[module] ?? null;
}

function moduleLine(
  check: string,
  assumption: string,
  kind: Kind,
  id: string,
  module: string,
  body: unknown,
  desired: unknown,
): DoctorLine {
  let value: unknown;
  try {
    value = moduleValueOf(kind, id, module, body);
  } catch (error) {
    return line(check, assumption, `the answer does not read: ${messageOf(error)}`, 'differs');
  }
  return canonicalJson(value) === canonicalJson(desired ?? null)
    ? line(check, assumption, 'as put', 'holds')
    : line(check, assumption, `differs: ${JSON.stringify(value)}`, 'differs');
}

async function statusOf(request: () => Promise<ApiResponse>): Promise<number | string> {
  const answer = await answerOf(request);
  return 'error' in answer ? messageOf(answer.error) : answer.status;
}

function idOf(body: unknown): string | undefined {
  return isRecord(body) && typeof body.id === 'string' ? body.id : undefined;
}

/** `/ip_policy_rules/ipr_…` as `/ip_policy_rules/{id}`: lines read the same from run to run. */
function pathShape(path: string, id: string): string {
  return path.replace(id, '{id}');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
