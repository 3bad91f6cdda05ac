import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonical-json.js';
import type { Result } from '../errors.js';
import { pointerToken } from '../json-pointer.js';
import type { Kind, SourceResolver } from '../kinds/kind.js';
import { assembleManifestSchema } from '../kinds/kind-schema.js';
import { sharedCopy } from '../kinds/repeated-strings.js';
import { unquotedFieldNames, visitSpec } from '../kinds/visit-spec.js';
import { EntryChecks, entryProblemError, type FileFacts } from './check-entries.js';
import type { DesiredEntry, DesiredState } from './desired-state.js';
import { entryPointerOf } from './entry-field-locations.js';
import type { EntryFieldOffsets } from './file-positions.js';
import { FieldPointerLists, FieldPositionTable, LoadedEntry } from './loaded-entry.js';
import { compareManifestErrors, type ManifestError } from './manifest-error.js';
import { type ManifestFile, walkManifestTree } from './manifest-files.js';
import type { LoadedFile, ManifestMemo } from './manifest-memo.js';
import { compileManifestSchema, type ManifestValidator } from './manifest-schema.js';
import { ManifestParsing, type ParsingOptions, type PendingParse } from './parse-in-worker.js';
import type { ParsedManifest, ParseOutcome } from './parsed-manifest.js';
import { entryLocation, type RawEntry } from './raw-entry.js';
import { type ReferenceOptions, readReferencedFile, resolveSecretValue } from './resolve-references.js';
import { mapSchemaErrors } from './schema-errors.js';
import { hasSecretField, reportSecretValues, withoutSecretValues } from './secret-values.js';
import { uniqueKeyConflicts } from './unique-key-conflicts.js';

export interface LoadOptions {
  /** Environment that `{ env: NAME }` references read. @default {} */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Owner written into the metadata marker; it counts toward the 4096-byte metadata limit. @default 'default' */
  readonly owner?: string;
  /** Lets file references leave the manifest root. @default false */
  readonly allowOutsideRoot?: boolean;
  /**
   * Reads `{ env }` and `{ file }` secret references. `validate` passes false
   * (unless `--require-secrets`): each reference is then checked for form and,
   * for a file, existence inside the root, and the resulting state holds
   * UNRESOLVED_SECRET in their place, fit for counting but not for planning.
   * @default true
   */
  readonly readSecrets?: boolean;
  /** Directory relative paths are resolved from. @default process.cwd() */
  readonly cwd?: string;
  /**
   * The registry of kinds: which collections a manifest may hold, their
   * schema parts, rules and order. Entry points pass the built-in KINDS
   * (src/kinds/registry.ts), with its validator compiled ahead of time.
   */
  readonly kinds: readonly Kind[];
  /**
   * The compiled schema of `kinds`: the built-in registry's is compiled ahead
   * of time (compileManifestSchema()), and the watcher reuses one across loads.
   * @default the assembly of `kinds`, compiled on each call
   */
  readonly validator?: ManifestValidator;
  /**
   * What each file gave the last load, kept by the daemon: unchanged files
   * are not parsed, checked or built again (manifest-memo.ts). The checks
   * across files (duplicate names, references) always run over the whole
   * set. @default none: every file is read
   */
  readonly memo?: ManifestMemo;
  /** When files are parsed on worker threads (parse-in-worker.ts). @default past 2 MB of files */
  readonly parsing?: ParsingOptions;
  /**
   * Told every resolved secret value of a load that succeeded, so that
   * messages from the service can be scrubbed of them (the API client's
   * SecretScrubber). @default none
   */
  readonly onSecret?: (value: string) => void;
}

export const DEFAULT_OWNER = 'default';

/**
 * Loads manifest files and directories into one desired state, or reports
 * every problem found, sorted by file and position. Reads only the disk.
 */
export async function loadDesiredState(
  paths: readonly string[],
  options: LoadOptions,
): Promise<Result<DesiredState, ManifestError>> {
  const cwd = options.cwd ?? process.cwd();
  const owner = options.owner ?? DEFAULT_OWNER;
  const references: ReferenceOptions = {
    env: options.env ?? {},
    allowOutsideRoot: options.allowOutsideRoot ?? false,
    readSecrets: options.readSecrets ?? true,
  };
  const { kinds } = options;
  const validate = options.validator ?? compileManifestSchema(assembleManifestSchema(kinds));
  const kindByName = new Map(kinds.map((kind) => [kind.name as string, kind]));

  const collected = await walkManifestTree(paths, { cwd, allowOutsideRoot: references.allowOutsideRoot });
  const errors: ManifestError[] = [...collected.errors];
  const checks = new EntryChecks(owner, kinds);
  const context: FileContext = {
    validate,
    kindByName,
    checks,
    pointerLists: new FieldPointerLists(),
    references,
    unquoted: unquotedFieldNames(kinds),
  };
  const desired: DesiredEntry[] = [];
  options.memo?.retain(collected.files);
  // Files are read and parsed up to PARSE_AHEAD ahead (on worker threads once
  // the load is large, parse-in-worker.ts) and taken in order: checked and
  // built one at a time, each file's document, positions and schema errors let
  // go before the next. Only the built entries (with their fields' positions
  // in a typed table) outlive their file.
  const parsing = new ManifestParsing(options.parsing);
  try {
    const files = collected.files;
    const ahead: Promise<PreparedFile>[] = [];
    let queued = 0;
    for (const file of files) {
      while (queued < files.length && ahead.length < PARSE_AHEAD) {
        ahead.push(prepareFile(files[queued] as ManifestFile, options.memo, parsing));
        queued += 1;
      }
      const prepared = (await ahead.shift()) as PreparedFile;
      const loaded = prepared.loaded ?? (await loadFile(file, await prepared.pending.take(), context));
      prepared.remember?.(loaded);
      for (const error of loaded.errors) errors.push(error);
      for (const error of checks.takeFacts(loaded.facts)) errors.push(error);
      for (const entry of loaded.built) desired.push(entry);
    }
  } finally {
    await parsing.close();
  }
  for (const error of checks.finish()) errors.push(error);
  for (const error of uniqueKeyConflicts(desired, kindByName)) errors.push(error);

  if (errors.length > 0) return { ok: false, errors: errors.sort(compareManifestErrors) };
  if (options.onSecret !== undefined && references.readSecrets) {
    reportSecretValues(desired, kinds, options.onSecret);
  }
  const kindOrder = kinds.map((kind) => kind.name as string);
  desired.sort(
    (a, b) =>
      kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const keepCanonical = options.memo !== undefined;
  let hash: string | undefined;
  return {
    ok: true,
    value: {
      entries: desired,
      files: collected.files.map((file) => file.display),
      directories: collected.manifestDirectories,
      warnings: collected.warnings.map((warning) => `${warning.file}: ${warning.message}`),
      // Hashed when first read: the text of a plan never reads it, and at 100,000 rules the
      // canonical JSON of every entry and its digest were about a tenth of `edgesync plan`'s CPU.
      get hash(): string {
        hash ??= hashEntries(desired, kinds, keepCanonical);
        return hash;
      },
    },
  };
}

interface FileContext {
  readonly validate: ManifestValidator;
  readonly kindByName: ReadonlyMap<string, Kind>;
  readonly checks: EntryChecks;
  readonly pointerLists: FieldPointerLists;
  readonly references: ReferenceOptions;
  /** Fields whose values a message never quotes, of the registry in use (unquotedFieldNames). */
  readonly unquoted: ReadonlySet<string>;
}

/**
 * Files read and parsed ahead of the one being built: enough to keep the
 * parsing workers busy, few enough that parsed documents do not pile up.
 */
const PARSE_AHEAD = 4;

/** A file looked up in the memo and, unless it is unchanged since, read and parsed. */
type PreparedFile =
  | { readonly loaded: LoadedFile; readonly remember?: undefined; readonly pending?: undefined }
  | {
      readonly loaded?: undefined;
      readonly remember?: (loaded: LoadedFile) => void;
      readonly pending: PendingParse;
    };

async function prepareFile(
  file: ManifestFile,
  memo: ManifestMemo | undefined,
  parsing: ManifestParsing,
): Promise<PreparedFile> {
  if (memo === undefined) return { pending: await parsing.start(file) };
  const found = await memo.lookup(file);
  if (found.loaded !== undefined) return { loaded: found.loaded };
  return { pending: await parsing.start(file), remember: found.remember };
}

/**
 * One file checked and built: its own errors, what it gives the checks
 * across files, and its valid entries. Its document is not kept.
 */
async function loadFile(file: ManifestFile, parsed: ParseOutcome, context: FileContext): Promise<LoadedFile> {
  const facts: FileFacts = { names: [], references: [] };
  if (!parsed.ok) return { errors: parsed.errors, facts, built: [], resolvedReferences: false };
  const { validate, kindByName, checks, pointerLists, references, unquoted } = context;
  const errors: ManifestError[] = [];
  const built: DesiredEntry[] = [];
  const manifest = parsed.manifest;
  const schemaErrors = mapSchemaErrors(validate(manifest.data), manifest, unquoted);
  for (const located of schemaErrors) errors.push(located.error);
  const entries = rawEntries(
    kindByName,
    manifest,
    schemaErrors.map((located) => located.pointer),
  );
  const table = new FieldPositionTable(file.display);
  let resolvedReferences = false;
  for (const entry of entries) {
    const location = entryLocation(entry);
    for (const error of checks.checkAlone(entry, location, facts)) errors.push(error);
    const kind = kindByName.get(entry.kind);
    if (!entry.valid || kind === undefined) continue;
    // The entry's own lists (fieldsOf builds a new pair each call): buildEntry may append moved fields.
    const fields = manifest.positions.offsets.fieldsOf(entry.pointer) ?? { pointers: [], offsets: [] };
    const copied = resolvesNothing(kind);
    resolvedReferences ||= !copied;
    const result = copied ? copyEntry(entry, kind) : await buildEntry(entry, kind, fields, references);
    for (const error of result.errors) errors.push(error);
    if (result.spec === undefined) continue;
    const row = table.addPosition(location.line, location.column);
    for (const offset of fields.offsets) table.addOffset(manifest.positions.lineStarts, offset);
    built.push(
      new LoadedEntry(
        {
          kind: entry.kind,
          name: entry.name,
          ...(result.id === undefined ? {} : { id: result.id }),
          protect: result.protect,
          spec: result.spec,
        },
        table,
        pointerLists.shared(fields.pointers),
        row,
      ),
    );
  }
  table.seal();
  return { errors, facts, built, resolvedReferences };
}

function rawEntries(
  kindByName: ReadonlyMap<string, Kind>,
  manifest: ParsedManifest,
  invalidPointers: readonly string[],
): RawEntry[] {
  const data = manifest.data as Record<string, unknown>;
  /** By entry pointer (or collection pointer), where in it the schema found problems. */
  const invalidEntries = new Map<string, string[]>();
  for (const invalid of invalidPointers) {
    // An error on a whole collection (`/kind`) invalidates every entry in it.
    const entryPointer = entryPointerOf(invalid) ?? invalid;
    const inside = invalidEntries.get(entryPointer) ?? [];
    inside.push(invalid.slice(entryPointer.length));
    invalidEntries.set(entryPointer, inside);
  }
  const entries: RawEntry[] = [];
  for (const kindName of Object.keys(data)) {
    const kind = kindByName.get(kindName)?.name;
    if (kind === undefined) continue;
    const collection = data[kind];
    if (collection === null || typeof collection !== 'object' || Array.isArray(collection)) continue;
    const collectionPointer = `/${pointerToken(kind)}`;
    const collectionInvalid = invalidEntries.has(collectionPointer);
    for (const [name, value] of Object.entries(collection as Record<string, unknown>)) {
      const pointer = `${collectionPointer}/${pointerToken(name)}`;
      const mapping = value !== null && typeof value === 'object' && !Array.isArray(value);
      const invalidAt = mapping && !collectionInvalid ? (invalidEntries.get(pointer) ?? []) : [''];
      entries.push({
        kind,
        name,
        manifest,
        pointer,
        value: (mapping && !collectionInvalid ? value : {}) as Record<string, unknown>,
        valid: invalidAt.length === 0,
        invalidAt,
      });
    }
  }
  return entries;
}

type BuiltEntry = { spec?: Record<string, unknown>; id?: string; protect: boolean; errors: ManifestError[] };

const resolvesNothingByKind = new WeakMap<Kind, boolean>();

/**
 * A kind with no sensitive field and no sources of its own (rules, reserved
 * addresses): its entries are built without a resolver, and without an
 * await each, which let 10,000 rules' loop yield 10,000 times.
 */
function resolvesNothing(kind: Kind): boolean {
  let found = resolvesNothingByKind.get(kind);
  if (found === undefined) {
    const rules = [kind.fields, ...kind.modules.map((module) => module.fields)].flat();
    found = kind.resolveSources === undefined && !rules.some((rule) => rule.sensitive === true);
    resolvesNothingByKind.set(kind, found);
  }
  return found;
}

/** What buildEntry gives for an entry of a kind that resolves nothing: its parts, copied. */
function copyEntry(entry: RawEntry, kind: Kind): BuiltEntry {
  return { ...entryParts(entry, kind), errors: [] };
}

/**
 * A copy of the entry's data split into its spec and the two fields that are
 * edgesync's own; the strings of the kind's recurring fields are shared.
 */
function entryParts(
  entry: RawEntry,
  kind: Kind,
): { spec: Record<string, unknown>; id?: string; protect: boolean } {
  const { id, protect, ...spec } = copyPlainData(entry.value) as Record<string, unknown>;
  for (const rule of kind.fields) {
    const value = spec[rule.name];
    if (rule.recurs === true && typeof value === 'string') spec[rule.name] = sharedCopy(value);
  }
  return { spec, ...(typeof id === 'string' ? { id } : {}), protect: protect === true };
}

/**
 * Resolves the entry's sources: every sensitive field (`{ env }`, `{ file }`
 * or a literal) of every kind, then the kind's own (`ca_pem_file`); and
 * records where each field is written.
 */
async function buildEntry(
  entry: RawEntry,
  kind: Kind,
  fields: EntryFieldOffsets,
  references: ReferenceOptions,
): Promise<BuiltEntry> {
  const errors: ManifestError[] = [];
  const parts = entryParts(entry, kind);
  const { spec } = parts;
  const fail = (error: ManifestError): undefined => {
    errors.push(error);
    return undefined;
  };
  const resolver: SourceResolver = {
    secret: async (pointer, value) => {
      const resolved = await resolveSecretValue(entry, pointer, value, references);
      return resolved.ok ? resolved.value : fail(resolved.error);
    },
    file: async (pointer, path) => {
      const read = await readReferencedFile(entry, pointer, pointer, path, references);
      return read.ok ? read.value : fail(read.error);
    },
    problem: (found) => errors.push(entryProblemError(entry, found)),
    moved: (from, to) => {
      const index = fields.pointers.indexOf(from);
      if (index === -1) return;
      fields.pointers.push(to);
      fields.offsets.push(fields.offsets[index] as number);
    },
    readsSecrets: references.readSecrets,
  };

  const secrets: { record: Record<string, unknown>; key: string; pointer: string }[] = [];
  visitSpec(kind, spec, ({ rules, record, pointer }) => {
    for (const rule of rules) {
      if (rule.sensitive === true && record?.[rule.name] !== undefined) {
        secrets.push({ record, key: rule.name, pointer: `${pointer}/${rule.name}` });
      }
    }
  });
  for (const { record, key, pointer } of secrets) {
    const value = await resolver.secret(pointer, record[key]);
    if (value !== undefined) record[key] = value;
  }
  await kind.resolveSources?.(spec, resolver);
  if (errors.length > 0) return { protect: false, errors };
  return { ...parts, errors };
}

/**
 * A deep copy of parsed YAML (mappings, lists, strings, numbers, booleans,
 * null), so resolving an entry's sources never writes into its file's data,
 * which later messages read paths from and aliases may share between
 * entries. structuredClone did the same at about three times the cost
 * (it serializes, then deserializes).
 */
function copyPlainData(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyPlainData);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // defineProperty, not assignment: a `__proto__` key stays a key, as structuredClone kept it.
    if (key === '__proto__') {
      Object.defineProperty(copy, key, {
        value: copyPlainData((value as Record<string, unknown>)[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      copy[key] = copyPlainData((value as Record<string, unknown>)[key]);
    }
  }
  return copy;
}

/**
 * Canonical JSON of each entry's hashed part, for loads with a memo: the
 * entries the daemon's memo keeps between loads are not serialized again.
 * A load without one (every command) keeps none: its entries are hashed
 * once, and the strings (about 200 bytes a rule, 20 MB at 100,000) would
 * live as long as the entries, through the whole plan.
 */
const canonicalOfEntry = new WeakMap<DesiredEntry, string>();

/**
 * canonicalHash of the list of every entry's kind, name, id, protect and
 * spec (secrets masked: withoutSecretValues), fed to the hash an entry at a time: the same digest as hashing the
 * list's canonical JSON (`[` items joined by `,` `]`), without building the
 * list and one string of it (15 MB at 100,000 rules).
 */
function hashEntries(
  entries: readonly DesiredEntry[],
  kinds: readonly Kind[],
  keepCanonical: boolean,
): string {
  const withSecrets = new Map(kinds.filter(hasSecretField).map((kind) => [kind.name as string, kind]));
  const hash = createHash('sha256').update('[');
  for (const [index, entry] of entries.entries()) {
    if (index > 0) hash.update(',');
    let canonical = canonicalOfEntry.get(entry);
    if (canonical === undefined) {
      canonical = canonicalJson({
        kind: entry.kind,
        name: entry.name,
        id: entry.id,
        protect: entry.protect,
        spec: withSecrets.has(entry.kind)
          ? withoutSecretValues(withSecrets.get(entry.kind) as Kind, entry.spec)
          : entry.spec,
      });
      if (keepCanonical) canonicalOfEntry.set(entry, canonical);
    }
    hash.update(canonical);
  }
  return hash.update(']').digest('hex');
}
