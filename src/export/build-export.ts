import { canonicalJson } from '../canonical-json.js';
import { isRecord } from '../json-value.js';
import { idPrefixTitles } from '../kinds/id-titles.js';
import type { FieldRule, Kind, ModuleRule } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import { newestFirst } from '../kinds/live-object.js';
import type { LiveObject, LiveState } from '../kinds/live-state.js';
import { assignEntryNames, type NameCheck, type NamingCandidate, nameCheckFrom } from './entry-names.js';
import { entryShape, type SchemaShape } from './schema-shape.js';

export interface BuildExportOptions {
  /** Objects whose marker has this owner are exported under their marker names. */
  readonly owner: string;
  /** Export objects without any ownership marker too (always with `id`, so applying adopts them). @default false */
  readonly includeUnmanaged?: boolean;
  /** Give every entry its `id`, so the first apply adopts it and writes the marker. @default false */
  readonly adopt?: boolean;
  /** The kinds to export, in registry order. */
  readonly kinds: readonly Kind[];
  /** The manifest JSON Schema: key order, required keys, the name pattern. */
  readonly schema: Readonly<Record<string, unknown>>;
  /**
   * true: a string field with a `<field>_file` form in the schema (`ca_pem`)
   * is written to a side file (`certs/NAME.pem`); false: inline (stdout).
   * @default true
   */
  readonly sideFiles?: boolean;
}

/** One manifest entry, ready to render. */
export interface ExportedEntry {
  readonly kind: KindName;
  readonly name: string;
  readonly id: string;
  /** Manifest-shaped, keys in the schema's order. */
  readonly value: Readonly<Record<string, unknown>>;
  /** Comment lines keyed by JSON Pointer into `value`; `''` is the entry itself. */
  readonly comments: Readonly<Record<string, readonly string[]>>;
}

/** A secret left out of the export: the entry holds `{ env: name }` instead. */
export interface SecretVariable {
  readonly env: string;
  readonly kind: KindName;
  /** Where it is used: `https_edges.web.routes[0].oidc.client_secret`. */
  readonly address: string;
}

/** A file beside the manifests (`certs/corp-root.pem`), path relative to the output directory. */
export interface SideFile {
  readonly path: string;
  readonly content: string;
}

export interface AccountExport {
  /** Sorted by kind (the options' order), then name. */
  readonly entries: readonly ExportedEntry[];
  readonly secrets: readonly SecretVariable[];
  readonly sideFiles: readonly SideFile[];
  /** Objects left out: unmanaged (without --include-unmanaged), owned by another owner, older duplicates of a marker. */
  readonly skipped: { readonly unmanaged: number; readonly otherOwners: number; readonly duplicates: number };
  /** Things a person should know, one sentence each, no secrets. */
  readonly warnings: readonly string[];
  /**
   * What the account holds of the kinds read, whether exported or not: an
   * entry an earlier export wrote is truly gone only when neither its `id`
   * nor its name (as this owner's marker) is here.
   */
  readonly present: {
    readonly ids: ReadonlySet<string>;
    /** `kind.name` of every object carrying this owner's marker. */
    readonly ownedNames: ReadonlySet<string>;
  };
}

const ROUTES_KEY = 'routes';
const METADATA_KEY = 'metadata';
/** Keys of a live route that select it or describe it, as opposed to its modules. */
const ROUTE_SELECTOR_KEYS = new Set(['id', 'match_type', 'match', 'description']);

interface Selected {
  readonly object: LiveObject;
  readonly owned: boolean;
}

/**
 * The live account as manifest entries: pure, no I/O, no clock. Planning
 * the result against the same account gives no changes (for owned objects;
 * unmanaged ones are adopted), and the same account always gives the same
 * entries. Secrets never appear: sensitive fields become `{ env }`.
 */
export function buildExport(live: LiveState, options: BuildExportOptions): AccountExport {
  const isValidName = nameCheckFrom(namePattern(options.schema), idPrefixTitles(options.kinds).keys());
  const warnings: string[] = [];
  const skipped = { unmanaged: 0, otherOwners: 0, duplicates: 0 };
  const selectedByKind = new Map<KindName, Selected[]>();
  const namesByKind = new Map<KindName, Map<string, string>>();

  for (const kind of options.kinds) {
    const selected = selectObjects(
      kind,
      live.objects[kind.name] ?? [],
      options,
      skipped,
      warnings,
      isValidName,
    );
    selectedByKind.set(kind.name, selected);
    namesByKind.set(kind.name, assignEntryNames(selected.map(namingCandidate), isValidName));
  }

  const entries: ExportedEntry[] = [];
  const secrets: SecretVariable[] = [];
  const sideFiles: SideFile[] = [];
  const usedEnv = new Set<string>();
  for (const kind of options.kinds) {
    const names = namesByKind.get(kind.name) ?? new Map<string, string>();
    const kindEntries = (selectedByKind.get(kind.name) ?? []).map((selected) =>
      exportEntry(kind, selected, names.get(selected.object.id) ?? selected.object.id, {
        options,
        namesByKind,
        secrets,
        sideFiles,
        usedEnv,
        warnings,
      }),
    );
    entries.push(...kindEntries.sort((a, b) => compareStrings(a.name, b.name)));
  }
  const ids = new Set<string>();
  const ownedNames = new Set<string>();
  for (const kind of options.kinds) {
    for (const object of live.objects[kind.name] ?? []) {
      ids.add(object.id);
      if (object.marker?.owner === options.owner) ownedNames.add(`${kind.name}.${object.marker.name}`);
    }
  }
  return {
    entries,
    secrets,
    sideFiles: sideFiles.sort((a, b) => compareStrings(a.path, b.path)),
    skipped,
    warnings,
    present: { ids, ownedNames },
  };
}

function selectObjects(
  kind: Kind,
  objects: readonly LiveObject[],
  options: BuildExportOptions,
  skipped: { unmanaged: number; otherOwners: number; duplicates: number },
  warnings: string[],
  isValidName: NameCheck,
): Selected[] {
  // Module-only edges are exported exactly as named on the command line.
  if (kind.ownership === 'modules-only') return objects.map((object) => ({ object, owned: false }));
  const ownedByName = new Map<string, LiveObject[]>();
  const selected: Selected[] = [];
  for (const object of objects) {
    if (object.marker === null) {
      if (options.includeUnmanaged) selected.push({ object, owned: false });
      else skipped.unmanaged += 1;
    } else if (object.marker.owner !== options.owner) {
      skipped.otherOwners += 1;
    } else if (!isValidName(object.marker.name)) {
      warnings.push(
        `${kind.name} ${object.id}: its marker name "${object.marker.name}" is not a valid entry name; left out`,
      );
    } else {
      ownedByName.set(object.marker.name, [...(ownedByName.get(object.marker.name) ?? []), object]);
    }
  }
  for (const [name, owned] of ownedByName) {
    // The planner keeps the newest of several objects with one marker (an interrupted replace) and prunes the rest.
    const [newest, ...older] = [...owned].sort(newestFirst);
    if (newest !== undefined) selected.push({ object: newest, owned: true });
    if (older.length > 0) {
      skipped.duplicates += older.length;
      warnings.push(
        `${kind.name}.${name}: ${older.length} older object(s) carry the same marker (${older.map((object) => object.id).join(', ')}); the next apply deletes them`,
      );
    }
  }
  return selected;
}

/**
 * Fields that say what an object is to the people who use it, in the order
 * tried after the description and a metadata `name`: an edge's first
 * hostport, a rule's CIDR, a reserved address. Looked up by field name,
 * whatever the kind, so a kind gets them by having the field.
 */
const RECOGNIZABLE_FIELDS = ['hostports', 'cidr', 'addr', 'domain'] as const;

function namingCandidate(selected: Selected): NamingCandidate {
  const { object } = selected;
  if (selected.owned && object.marker !== null)
    return { id: object.id, markerName: object.marker.name, hints: [] };
  const text = (value: unknown): string | undefined =>
    typeof value === 'string' && value !== '' ? value : undefined;
  const metadata = object.spec[METADATA_KEY];
  const metadataName = isRecord(metadata) ? text(metadata.name) : undefined;
  const recognizable = RECOGNIZABLE_FIELDS.map((field) => {
    const value = object.spec[field] ?? object.outputs[field];
    return Array.isArray(value) ? text([...value].map(String).sort()[0]) : text(value);
  });
  // A CIDR's "/" and a hostport's ":" become "-" in the slug: 10.0.0.0/24 → 10.0.0.0-24.
  return { id: object.id, hints: [text(object.spec.description), metadataName, ...recognizable] };
}

interface EntryContext {
  readonly options: BuildExportOptions;
  readonly namesByKind: ReadonlyMap<KindName, ReadonlyMap<string, string>>;
  readonly secrets: SecretVariable[];
  readonly sideFiles: SideFile[];
  readonly usedEnv: Set<string>;
  readonly warnings: string[];
}

/** A module value inside an entry: where it is, its rule, its schema shape. */
interface ModuleSlot {
  readonly rule: ModuleRule;
  readonly value: Record<string, unknown>;
  readonly pointer: string;
  readonly address: string;
  /** Extra words for secret variable names (the route's match). */
  readonly label: readonly string[];
  readonly shape: SchemaShape | undefined;
}

function exportEntry(kind: Kind, selected: Selected, name: string, ctx: EntryContext): ExportedEntry {
  const { object, owned } = selected;
  const shape = entryShape(ctx.options.schema, kind.name);
  const adopting = kind.ownership === 'metadata' && !owned;
  const comments: Record<string, string[]> = { '': entryComment(object, adopting) };
  const spec = structuredClone(object.spec) as Record<string, unknown>;
  const address = `${kind.name}.${name}`;

  if (spec[METADATA_KEY] !== undefined && !isRecord(spec[METADATA_KEY])) {
    // A manifest's metadata is a mapping; adopting rewrites metadata as JSON, so say what will be lost.
    delete spec[METADATA_KEY];
    comments['']?.push('its metadata is not a JSON object and cannot be written here; adopting replaces it');
    ctx.warnings.push(`${address}: metadata is not a JSON object; it is left out and adopting replaces it`);
  }
  exportRoutes(kind, spec, comments);
  for (const [key, value] of Object.entries(spec))
    if (value === null || value === undefined) delete spec[key];

  const slots = moduleSlots(kind, spec, shape, address);
  for (const slot of slots) minimizeModule(kind, spec, slot);
  replaceSecrets(kind, spec, slots, name, ctx);
  replaceReferences(kind, spec, slots, ctx.namesByKind);
  if (ctx.options.sideFiles ?? true) moveToSideFiles(spec, shape, name, ctx.sideFiles);

  const withId =
    kind.ownership === 'modules-only' || !owned || ctx.options.adopt === true ? { id: object.id } : {};
  const value = orderKeys({ ...withId, ...spec }, shape) as Record<string, unknown>;
  return { kind: kind.name, name, id: object.id, value, comments };
}

function entryComment(object: LiveObject, adopting: boolean): string[] {
  const lines = [object.createdAt === undefined ? object.id : `${object.id}, created ${object.createdAt}`];
  for (const [key, value] of Object.entries(object.outputs)) {
    if (typeof value === 'string' || typeof value === 'number') lines.push(`${key}: ${value}`);
    else if (Array.isArray(value) && value.length > 0) lines.push(`${key}: ${value.join(', ')}`);
  }
  if (adopting) lines.push('not managed by edgesync yet: applying adopts it by id and writes the marker');
  return lines;
}

/**
 * Routes are selected, not created: a route whose managed modules are all
 * unset is left out (a comment names it); the others are selected by
 * `match_type` + `match`, or by `id` when another route has the same match.
 * Read-only route modules (no write endpoint) go into comments.
 */
function exportRoutes(kind: Kind, spec: Record<string, unknown>, comments: Record<string, string[]>): void {
  const managedModules = kind.modules.filter((rule) => rule.scope === 'route').map((rule) => rule.name);
  const liveRoutes = spec[ROUTES_KEY];
  if (managedModules.length === 0 || !Array.isArray(liveRoutes)) return;
  const routes = liveRoutes.filter(isRecord).sort(compareRoutes);
  const matchCounts = new Map<string, number>();
  for (const route of routes) matchCounts.set(matchKey(route), (matchCounts.get(matchKey(route)) ?? 0) + 1);
  const exported: Record<string, unknown>[] = [];
  for (const route of routes) {
    const readOnly = Object.entries(route).filter(
      ([key, value]) =>
        !ROUTE_SELECTOR_KEYS.has(key) &&
        !managedModules.includes(key) &&
        value !== null &&
        value !== undefined,
    );
    const readOnlyText = readOnly.map(([key, value]) => `${key} ${canonicalJson(value)}`).join(', ');
    const describe = `route ${String(route.match_type)} ${String(route.match)} (${String(route.id)})`;
    const modules = managedModules.filter((module) => isRecord(route[module]));
    if (modules.length === 0) {
      comments['']?.push(
        readOnlyText === ''
          ? `${describe}: no managed module set`
          : `${describe}: no managed module set; read-only modules: ${readOnlyText}`,
      );
      continue;
    }
    const selector =
      matchCounts.get(matchKey(route)) === 1
        ? { match_type: route.match_type, match: route.match }
        : { id: route.id };
    const routeComment = [
      typeof route.description === 'string' ? `${String(route.id)}: ${route.description}` : String(route.id),
    ];
    if (readOnlyText !== '') routeComment.push(`read-only modules: ${readOnlyText}`);
    comments[`/${ROUTES_KEY}/${exported.length}`] = routeComment;
    exported.push({ ...selector, ...Object.fromEntries(modules.map((module) => [module, route[module]])) });
  }
  if (exported.length === 0) delete spec[ROUTES_KEY];
  else spec[ROUTES_KEY] = exported;
}

function moduleSlots(
  kind: Kind,
  spec: Record<string, unknown>,
  shape: SchemaShape | undefined,
  address: string,
): ModuleSlot[] {
  const slots: ModuleSlot[] = [];
  for (const rule of kind.modules) {
    if (rule.scope === 'resource') {
      const value = spec[rule.name];
      if (isRecord(value)) {
        slots.push({
          rule,
          value,
          pointer: `/${rule.name}`,
          address: `${address}.${rule.name}`,
          label: [],
          shape: shape?.child(rule.name),
        });
      }
      continue;
    }
    const routes = spec[ROUTES_KEY];
    if (!Array.isArray(routes)) continue;
    routes.forEach((route: unknown, index) => {
      if (!isRecord(route) || !isRecord(route[rule.name])) return;
      slots.push({
        rule,
        value: route[rule.name] as Record<string, unknown>,
        pointer: `/${ROUTES_KEY}/${index}/${rule.name}`,
        address: `${address}.${ROUTES_KEY}[${index}].${rule.name}`,
        label: [String(route.match ?? route.id ?? index)],
        shape: shape?.child(ROUTES_KEY)?.child(rule.name),
      });
    });
  }
  return slots;
}

/**
 * Leaves out every module field whose absence normalizes to the same value
 * (`enabled: true`, `cookie_prefix: ""`, …): the kind's own `normalizeDesired`
 * decides, so the export stays equal to the live object by construction.
 */
function minimizeModule(kind: Kind, spec: Record<string, unknown>, slot: ModuleSlot): void {
  const target = canonicalJson(kind.normalizeDesired(spec));
  for (const key of Object.keys(slot.value)) {
    if (slot.shape?.required.has(key)) continue;
    const kept = slot.value[key];
    delete slot.value[key];
    if (canonicalJson(kind.normalizeDesired(spec)) !== target) slot.value[key] = kept;
  }
}

function replaceSecrets(
  kind: Kind,
  spec: Record<string, unknown>,
  slots: readonly ModuleSlot[],
  name: string,
  ctx: EntryContext,
): void {
  const replace = (
    holder: Record<string, unknown>,
    rules: readonly FieldRule[],
    words: string[],
    address: string,
  ) => {
    for (const rule of rules) {
      if (!rule.sensitive || holder[rule.name] === undefined || holder[rule.name] === null) continue;
      const env = uniqueEnvName(['EDGESYNC', kind.name, name, ...words, rule.name], ctx.usedEnv);
      holder[rule.name] = { env };
      ctx.secrets.push({ env, kind: kind.name, address: `${address}.${rule.name}` });
    }
  };
  replace(spec, kind.fields, [], `${kind.name}.${name}`);
  for (const slot of slots)
    replace(slot.value, slot.rule.fields, [...slot.label, slot.rule.name], slot.address);
}

function uniqueEnvName(words: readonly string[], used: Set<string>): string {
  const base =
    words
      .join('_')
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'EDGESYNC_SECRET';
  let env = base;
  for (let suffix = 2; used.has(env); suffix += 1) env = `${base}_${suffix}`;
  used.add(env);
  return env;
}

/** IDs of exported entries become their names, so the manifests stay whole when IDs change on a re-create. */
function replaceReferences(
  kind: Kind,
  spec: Record<string, unknown>,
  slots: readonly ModuleSlot[],
  namesByKind: ReadonlyMap<KindName, ReadonlyMap<string, string>>,
): void {
  const replace = (holder: Record<string, unknown>, rules: readonly FieldRule[]) => {
    for (const rule of rules) {
      if (rule.references === undefined) continue;
      const names = namesByKind.get(rule.references);
      if (names === undefined) continue;
      const value = holder[rule.name];
      const named = (id: unknown): unknown => (typeof id === 'string' ? (names.get(id) ?? id) : id);
      if (Array.isArray(value)) {
        const mapped = value.map(named);
        holder[rule.name] = rule.setLike
          ? mapped.sort((a, b) => compareStrings(String(a), String(b)))
          : mapped;
      } else if (value !== undefined) {
        holder[rule.name] = named(value);
      }
    }
  };
  replace(spec, kind.fields);
  for (const slot of slots) replace(slot.value, slot.rule.fields);
}

/** `ca_pem` → `ca_pem_file: certs/NAME.pem` wherever the schema offers a `<field>_file` form. */
function moveToSideFiles(
  spec: Record<string, unknown>,
  shape: SchemaShape | undefined,
  name: string,
  sideFiles: SideFile[],
): void {
  for (const key of Object.keys(spec)) {
    const value = spec[key];
    const fileKey = `${key}_file`;
    if (typeof value !== 'string' || !shape?.keys.includes(fileKey)) continue;
    const path = key.endsWith('_pem') ? `certs/${name}.pem` : `files/${name}.${key}.txt`;
    sideFiles.push({ path, content: value.endsWith('\n') ? value : `${value}\n` });
    delete spec[key];
    spec[fileKey] = path;
  }
}

/** Keys in the schema's order (unknown ones after, sorted), recursively where the schema describes the value. */
function orderKeys(value: unknown, shape: SchemaShape | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => orderKeys(item, shape));
  if (!isRecord(value) || shape === undefined) return value;
  const known = shape.keys.filter((key) => key in value);
  const unknown = Object.keys(value)
    .filter((key) => !shape.keys.includes(key))
    .sort(compareStrings);
  const ordered: Record<string, unknown> = {};
  for (const key of [...known, ...unknown]) ordered[key] = orderKeys(value[key], shape.child(key));
  return ordered;
}

function namePattern(schema: Readonly<Record<string, unknown>>): string {
  const definitions = isRecord(schema.definitions) ? schema.definitions : {};
  const name = isRecord(definitions.name) ? definitions.name : {};
  return typeof name.pattern === 'string' ? name.pattern : '^[a-z0-9]([a-z0-9._-]{0,62}[a-z0-9])?$';
}

function matchKey(route: Readonly<Record<string, unknown>>): string {
  return `${String(route.match_type)} ${String(route.match)}`;
}

function compareRoutes(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): number {
  return compareStrings(matchKey(a), matchKey(b)) || compareStrings(String(a.id), String(b.id));
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
