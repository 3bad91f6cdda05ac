import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';

type Schema = Record<string, unknown>;

const SCHEMA = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../schemas/manifest.schema.json'), 'utf8'),
) as Schema;
const DEFINITIONS = SCHEMA.definitions as Record<string, Schema>;

function resolved(schema: Schema | undefined): Schema | undefined {
  const ref = schema?.$ref;
  if (typeof ref === 'string') return DEFINITIONS[ref.replace('#/definitions/', '')];
  return schema;
}

/** A path below an entry: a field name, or `[]` for the first item of a list. */
type Step = string;

interface Level {
  readonly kind: string;
  readonly path: readonly Step[];
  readonly fields: readonly string[];
}

/** Every object of a kind's entry that has its own known fields: the entry itself and each nested module. */
function levelsOf(kind: string, schema: Schema | undefined, path: readonly Step[]): Level[] {
  const object = resolved(schema);
  if (object === undefined) return [];
  if (object.items !== undefined) return levelsOf(kind, object.items as Schema, [...path, '[]']);
  const properties = object.properties as Record<string, Schema> | undefined;
  if (properties === undefined || object.additionalProperties !== false) return [];
  const here: Level = { kind, path, fields: Object.keys(properties) };
  return [
    here,
    ...Object.entries(properties).flatMap(([name, child]) => levelsOf(kind, child, [...path, name])),
  ];
}

const KINDS = Object.entries(SCHEMA.properties as Record<string, Schema>).filter(
  ([name]) => name !== 'version',
);
const LEVELS = KINDS.flatMap(([kind, collection]) =>
  levelsOf(kind, collection.additionalProperties as Schema, []),
);

/** `cidr` → `cdir`: two letters swapped, two edits away. */
function misspell(field: string): string {
  const letters = [...field];
  [letters[1], letters[2]] = [letters[2] as string, letters[1] as string];
  return letters.join('');
}

/** The object to write for `path`, with `leaf` at its end. */
function nest(path: readonly Step[], leaf: Record<string, unknown>): unknown {
  if (path.length === 0) return leaf;
  const [step, ...rest] = path as [Step, ...Step[]];
  return step === '[]' ? [nest(rest, leaf)] : { [step]: nest(rest, leaf) };
}

describe('a misspelled field gets "did you mean" with its place', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-did-you-mean-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('covers every kind at its top level and nested objects', () => {
    expect(new Set(LEVELS.filter((level) => level.path.length === 0).map((level) => level.kind))).toEqual(
      new Set(KINDS.map(([kind]) => kind)),
    );
    expect(LEVELS.some((level) => level.path.length > 0)).toBe(true);
  });

  it.each(
    LEVELS.map((level) => [`${level.kind}${level.path.map((step) => `.${step}`).join('')}`, level] as const),
  )('%s', async (_label, level) => {
    // The longest known name at this level: its misspelling has no nearer neighbour.
    const field = [...level.fields].sort((a, b) => b.length - a.length)[0] as string;
    const typo = misspell(field);
    const text = stringify({ version: 1, [level.kind]: { probe: nest(level.path, { [typo]: 'x' }) } });
    const file = join(dir, `${level.kind}-${level.path.join('-').replaceAll('[]', 'item')}.yaml`);
    await writeFile(file, text);
    const lines = text.split('\n');
    const line = lines.findIndex((candidate) => candidate.includes(`${typo}:`));
    const column = (lines[line] ?? '').indexOf(typo) + 1;

    const result = await loadDesiredState([file], { ...BUILT_IN_LOAD, env: {} });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    const messages = result.errors.map((error) => error.format());
    expect(messages).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^${escapeRegExp(file)}:${line + 1}:${column}: .*unknown field "${escapeRegExp(typo)}"; did you mean \`${escapeRegExp(field)}\`\\?`,
        ),
      ),
    );
    // One mistake, one error: the misspelled field is not also reported missing.
    expect(messages.join('\n')).not.toContain(`missing required field "${field}"`);
  });

  it('suggests nothing for a name that is not close to any field', async () => {
    const file = join(dir, 'far.yaml');
    await writeFile(
      file,
      'version: 1\nip_policy_rules:\n  office:\n    ip_policy_id: ipp_OfficeVpnPolicy000000000001\n    cidr: 203.0.113.0/24\n    action: allow\n    comment: x\n',
    );

    const result = await loadDesiredState([file], { ...BUILT_IN_LOAD, env: {} });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => error.format())).toEqual([
      `${file}:7:5: ip_policy_rules.office.comment: unknown field "comment"; expected one of: id, ip_policy_id, cidr, action, description, metadata, protect`,
    ]);
  });

  it('a misspelled required field is one error, not also "missing"', async () => {
    const file = join(dir, 'cdir.yaml');
    await writeFile(
      file,
      'version: 1\nip_policy_rules:\n  office:\n    ip_policy_id: ipp_OfficeVpnPolicy000000000001\n    cdir: 203.0.113.0/24\n    action: allow\n',
    );

    const result = await loadDesiredState([file], { ...BUILT_IN_LOAD, env: {} });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => error.format())).toEqual([
      `${file}:5:5: ip_policy_rules.office.cdir: unknown field "cdir"; did you mean \`cidr\`? (expected one of: id, ip_policy_id, cidr, action, description, metadata, protect)`,
    ]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
