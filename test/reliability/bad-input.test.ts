import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { KINDS } from '../../src/kinds/registry.js';
import { preparePlan } from '../../src/plan-session/prepare-plan.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';
import { assertBuilt, POLICY_ID, runCli, statsOf, writesOf } from './reliability-harness.js';

const RULE = `    ip_policy_id: ${POLICY_ID}\n    cidr: 10.0.0.1/32\n    action: deny\n`;

/** Hostile manifests: file name → content. Each must be refused with a location, before any request. */
const CORPUS: ReadonlyArray<readonly [string, string | Buffer]> = [
  [
    'yaml-bomb',
    `version: 1\na: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\nip_policy_rules: *f\n`,
  ],
  [
    'ten-megabytes',
    `version: 1\nip_policy_rules:\n  big:\n${RULE}    description: "${'x'.repeat(10 * 1024 * 1024)}"\n`,
  ],
  [
    'deep-nesting',
    `version: 1\nip_policy_rules:\n  deep:\n${RULE}    metadata: ${'{a: '.repeat(2000)}1${'}'.repeat(2000)}\n`,
  ],
  [
    'invalid-utf8',
    Buffer.concat([
      Buffer.from(`version: 1\nip_policy_rules:\n  bad:\n${RULE}    description: "`),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"\n'),
    ]),
  ],
  ['duplicate-keys', `version: 1\nip_policy_rules:\n  twice:\n${RULE}  twice:\n${RULE}`],
  [
    'path-traversal',
    'version: 1\ncertificate_authorities:\n  escape:\n    ca_pem_file: ../../../../../../etc/passwd\n',
  ],
  [
    'huge-numbers',
    `version: 1\nip_policy_rules:\n  big:\n    ip_policy_id: ${POLICY_ID}\n    cidr: 10.0.0.1/32\n    action: deny\n    description: 1e400\nreserved_addrs:\n  n:\n    description: 18446744073709551617\n    region: 99999999999999999999999\n`,
  ],
  [
    'wrong-types',
    'version: "one"\nip_policy_rules: [1, 2]\nreserved_addrs: 7\ncertificate_authorities:\n  c: { ca_pem: 5, description: [] }\nhttps_edges:\n  w: { hostports: "a", routes: {} }\ntcp_edges:\n  t: { id: 3, ip_restriction: "yes" }\n',
  ],
  ['not-yaml', '{{{ ][ :: !!binary |\n\t- -\n'],
  ['custom-tag', `version: 1\nip_policy_rules:\n  tagged: !!js/function "function(){}"\n`],
];

describe('hostile manifests are refused cleanly, with a location, and send no write', () => {
  let emulator: RunningEmulator;
  let dir: string;

  beforeAll(async () => {
    assertBuilt();
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY_ID }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-bad-input-'));
  });
  afterAll(async () => {
    await emulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(CORPUS)('%s', async (name, content) => {
    const caseDir = join(dir, name, 'manifests');
    await mkdir(caseDir, { recursive: true });
    await writeFile(join(caseDir, 'input.yaml'), content);
    const before = writesOf(await statsOf(emulator));

    const run = await runCli(['apply', 'manifests', '--yes', '--api-url', emulator.url], {
      cwd: join(dir, name),
      env: { EDGE_API_KEY: emulator.apiKey },
      limitMs: 30_000,
      nodeFlags: ['--max-old-space-size=256'],
    });

    expect(run.signal).toBeNull();
    expect(run.code).toBe(1);
    // A file refused as a whole (its size) has no position; every other refusal names line and column.
    expect(run.stderr).toMatch(
      name === 'ten-megabytes' ? /input\.yaml: file is larger than/ : /input\.yaml:\d+:\d+: /,
    );
    expect(run.stderr).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m);
    expect(writesOf(await statsOf(emulator)) - before).toBe(0);
  });

  it('fuzzed documents (fast-check): every refusal carries file and line, and nothing is written', async () => {
    const api = createApiClient({
      baseUrl: emulator.url,
      apiKey: emulator.apiKey,
      budget: new RequestBudget({ requests: 1_000_000, windowMs: 1000 }),
    });
    const before = writesOf(await statsOf(emulator));
    const fuzzDir = join(dir, 'fuzz');
    await mkdir(fuzzDir, { recursive: true });
    const value = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
    const entry = fc.dictionary(
      fc.constantFrom(
        'ip_policy_id',
        'cidr',
        'action',
        'description',
        'metadata',
        'region',
        'ca_pem',
        'id',
        'protect',
        'routes',
        'x',
      ),
      fc.oneof(value, fc.array(value, { maxLength: 3 }), fc.dictionary(fc.string(), value, { maxKeys: 3 })),
    );
    const document = fc.record({
      version: fc.oneof(fc.constant(1), value),
      collection: fc.constantFrom(
        'ip_policy_rules',
        'reserved_addrs',
        'certificate_authorities',
        'https_edges',
        'tcp_edges',
        'nope',
      ),
      entries: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.oneof(entry, value), {
        minKeys: 1,
        maxKeys: 4,
      }),
    });

    await fc.assert(
      fc.asyncProperty(document, async ({ version, collection, entries }) => {
        const file = join(fuzzDir, 'fuzz.yaml');
        await writeFile(file, stringify({ version, [collection]: entries }));
        const result = await preparePlan([file], api, {
          load: { ...BUILT_IN_LOAD, cwd: fuzzDir },
          plan: { kinds: KINDS, owner: 'fuzz' },
        });
        if (result.ok) return;
        for (const error of result.errors) {
          expect(error.file).toContain('fuzz.yaml');
          expect(error.line).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: 150, seed: 424_242 },
    );

    expect(writesOf(await statsOf(emulator)) - before).toBe(0);
  });
});
