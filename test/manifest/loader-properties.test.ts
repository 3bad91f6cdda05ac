import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import { ManifestError } from '../../src/manifest/manifest-error.js';
import { compileManifestSchema } from '../../src/manifest/manifest-schema.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';
import { propertyRuns } from '../support/property-runs.js';

const validator = compileManifestSchema();
const SEED = 20240611;

const nameArb = fc
  .stringMatching(/^[a-z0-9][a-z0-9-]{0,10}[a-z0-9]$/)
  .filter((name) => !/^(ra|ca|ec)_/.test(name));
const idArb = (prefix: string) => fc.stringMatching(/^[A-Za-z0-9]{4,12}$/).map((rest) => `${prefix}${rest}`);
const cidrArb = fc
  .tuple(
    fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }),
    fc.integer({ min: 0, max: 32 }),
  )
  .map(([octets, bits]) => {
    const value = octets.reduce((sum, octet) => sum * 256 + octet, 0);
    const network = Math.floor(value / 2 ** (32 - bits)) * 2 ** (32 - bits);
    return `${[24, 16, 8, 0].map((shift) => Math.floor(network / 2 ** shift) % 256).join('.')}/${bits}`;
  });
const metadataArb = fc.dictionary(
  fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/).filter((key) => key !== 'edgesync'),
  fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean()),
  { maxKeys: 4 },
);
const ruleArb = fc.record(
  {
    ip_policy_id: idArb('ipp_'),
    cidr: cidrArb,
    action: fc.constantFrom('allow', 'deny'),
    description: fc.string({ maxLength: 60 }),
    metadata: metadataArb,
    protect: fc.boolean(),
  },
  { requiredKeys: ['ip_policy_id', 'cidr', 'action'] },
);
const addrArb = fc.record(
  {
    description: fc.string({ maxLength: 60 }),
    region: fc.constantFrom('au', 'eu', 'ap', 'us', 'jp', 'in', 'sa'),
    endpoint_configuration_id: idArb('ec_'),
  },
  { requiredKeys: [] },
);
const tlsEdgeArb = fc
  .record(
    {
      id: idArb('edgtls_'),
      mutual_tls: fc.oneof(
        fc.constant(null),
        fc.record({ certificate_authorities: fc.uniqueArray(idArb('ca_'), { minLength: 1, maxLength: 3 }) }),
      ),
      tls_termination: fc.oneof(
        fc.constant(null),
        fc.record({
          terminate_at: fc.constant('edge'),
          min_version: fc.constantFrom('1.0', '1.1', '1.2', '1.3'),
        }),
        fc.record({ terminate_at: fc.constant('upstream') }),
      ),
    },
    { requiredKeys: ['id'] },
  )
  // The service refuses mutual TLS on an edge that passes TLS through.
  .filter((edge) => !(edge.mutual_tls && edge.tls_termination?.terminate_at === 'upstream'));
const manifestArb = fc.record({
  version: fc.constant(1),
  // The service holds one rule per CIDR and IP policy.
  ip_policy_rules: fc.dictionary(nameArb, ruleArb, { maxKeys: 4 }).filter((rules) => {
    const keys = Object.values(rules).map((rule) => `${rule.ip_policy_id} ${rule.cidr}`);
    return new Set(keys).size === keys.length;
  }),
  reserved_addrs: fc.dictionary(nameArb, addrArb, { maxKeys: 3 }),
  tls_edges: fc.dictionary(nameArb, tlsEdgeArb, { maxKeys: 2 }),
});

describe('loader properties', () => {
  let dir: string;
  let example: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-props-'));
    example = await readFile('examples/manifests/ip-policy-rules.yaml', 'utf8');
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads random valid manifests written as YAML back to the same entries', async () => {
    await fc.assert(
      fc.asyncProperty(manifestArb, async (manifest) => {
        await writeFile(join(dir, 'm.yaml'), stringify(manifest));

        const result = await loadDesiredState(['m.yaml'], { ...BUILT_IN_LOAD, cwd: dir, validator });

        if (!result.ok) throw new Error(result.errors.map((error) => error.format()).join('\n'));
        for (const entry of result.value.entries) {
          const written = (manifest as unknown as Record<string, Record<string, Record<string, unknown>>>)[
            entry.kind
          ]?.[entry.name];
          const { id, protect, ...spec } = written ?? {};
          expect(entry.spec).toEqual(spec);
          expect(entry.id).toBe(id);
          expect(entry.protect).toBe(protect === true);
        }
        const count =
          Object.keys(manifest.ip_policy_rules).length +
          Object.keys(manifest.reserved_addrs).length +
          Object.keys(manifest.tls_edges).length;
        expect(result.value.entries).toHaveLength(count);
      }),
      { numRuns: propertyRuns({ small: 10, large: 40 }), seed: SEED },
    );
  });

  it('never crashes on mutated YAML text: only located ManifestErrors', async () => {
    const mutation = fc.array(
      fc.record({
        at: fc.nat(),
        remove: fc.integer({ min: 0, max: 3 }),
        insert: fc.oneof(
          fc.constantFrom(
            ':',
            '-',
            '[',
            ']',
            '{',
            '}',
            '&a',
            '*a',
            '!',
            '#',
            '\n',
            '  ',
            '"',
            "'",
            '|',
            '---\n',
            '\t',
            '\u0000',
          ),
          fc.string({ maxLength: 4 }),
        ),
      }),
      { minLength: 1, maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(mutation, async (edits) => {
        let text = example;
        for (const edit of edits) {
          const at = edit.at % (text.length + 1);
          text = text.slice(0, at) + edit.insert + text.slice(at + edit.remove);
        }
        await writeFile(join(dir, 'm.yaml'), text);

        const result = await loadDesiredState(['m.yaml'], { ...BUILT_IN_LOAD, cwd: dir, validator });

        if (!result.ok) {
          for (const error of result.errors) {
            expect(error).toBeInstanceOf(ManifestError);
            expect(error.file).toBe('m.yaml');
            expect(error.line).toBeGreaterThanOrEqual(1);
            expect(error.column).toBeGreaterThanOrEqual(1);
          }
        }
      }),
      { numRuns: propertyRuns({ small: 40, large: 150 }), seed: SEED },
    );
  });

  it('never crashes on mutated values: only located ManifestErrors', async () => {
    const base = parse(await readFile('examples/manifests/https-edges.yaml', 'utf8')) as Record<
      string,
      unknown
    >;
    const paths: (string | number)[][] = [
      ['https_edges', 'web'],
      ['https_edges', 'web', 'hostports'],
      ['https_edges', 'web', 'mutual_tls'],
      ['https_edges', 'web', 'mutual_tls', 'certificate_authorities'],
      ['https_edges', 'web', 'tls_termination', 'min_version'],
      ['https_edges', 'web', 'routes'],
      ['https_edges', 'web', 'routes', 0],
      ['https_edges', 'web', 'routes', 0, 'oidc'],
      ['https_edges', 'web', 'routes', 0, 'oidc', 'client_secret'],
      ['https_edges', 'web', 'routes', 0, 'oidc', 'issuer'],
      ['https_edges', 'web', 'metadata'],
      ['https_edges'],
      ['version'],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.jsonValue(), async (path, value) => {
        const mutated = structuredClone(base);
        let target: Record<string | number, unknown> = mutated;
        for (const segment of path.slice(0, -1)) target = target[segment] as Record<string | number, unknown>;
        const last = path.at(-1);
        if (last !== undefined) target[last] = value;
        await writeFile(join(dir, 'm.yaml'), stringify(mutated));

        const result = await loadDesiredState(['m.yaml'], { ...BUILT_IN_LOAD, cwd: dir, validator });

        if (!result.ok) {
          for (const error of result.errors) {
            expect(error).toBeInstanceOf(ManifestError);
            expect(error.line).toBeGreaterThanOrEqual(1);
          }
        }
      }),
      { numRuns: propertyRuns({ small: 40, large: 150 }), seed: SEED },
    );
  });
});
