import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { EmulatorSeed } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import { OPERATIONS } from '../../src/plan/plan.js';
import { runEdgesyncInProcess } from '../support/edgesync-cli.js';
import { emulatorStats, listAll } from './apply-harness.js';
import { inspectClient } from './cli-process.js';

/**
 * The promise of `apply --plan`, as a property: for any plan file derived
 * from a real one by inserting, deleting or editing actions or the safety
 * block, the apply either refuses with nothing sent, or sends exactly the
 * plan that the manifests and the account give now. Each case runs the
 * command in this process (src/cli/run-edgesync.ts) against an emulator
 * started from the same saved account, and compares what the emulator
 * received (writes by route) and holds afterwards with a genuine apply's.
 */

const BLOCK = 'ipp_BlockListPolicy000000000001';
const OFFICE = 'ipp_OfficeVpnPolicy000000000001';
const id = (prefix: string, name: string): string => `${prefix}${name.padEnd(27, '0')}`;
const IDS = {
  a: id('ipr_', 'PropRuleA'),
  b: id('ipr_', 'PropRuleB'),
  p: id('ipr_', 'PropRuleProtected'),
  u: id('ipr_', 'PropRuleUnmanaged'),
  bastion: id('ra_', 'PropBastion'),
};
const marker = (name: string, protect = false) =>
  encodeMetadata(undefined, { owner: 'default', name, ...(protect ? { protect: true as const } : {}) });

const SEED: EmulatorSeed = {
  ip_policies: [
    { id: BLOCK, description: 'block list' },
    { id: OFFICE, description: 'office VPN' },
  ],
  ip_policy_rules: [
    {
      id: IDS.a,
      ip_policy_id: BLOCK,
      cidr: '10.0.1.0/24',
      action: 'deny',
      description: 'before',
      metadata: marker('a'),
    },
    { id: IDS.b, ip_policy_id: BLOCK, cidr: '10.0.2.0/24', action: 'deny', metadata: marker('b') },
    { id: IDS.p, ip_policy_id: BLOCK, cidr: '10.0.3.0/24', action: 'deny', metadata: marker('p', true) },
    { id: IDS.u, ip_policy_id: OFFICE, cidr: '10.0.9.0/24', action: 'allow', description: 'not ours' },
  ],
  reserved_addrs: [
    { id: IDS.bastion, description: 'SSH bastion', region: 'eu', metadata: marker('bastion', true) },
  ],
};

const RULE_P = `  p:
    ip_policy_id: ${BLOCK}
    cidr: 10.0.3.0/24
    action: deny
    protect: true
`;

/** Updates a, prunes b, creates c; without `p`, the plan also deletes a protected rule and is refused. */
function manifest(keepProtected: boolean): string {
  return `version: 1
ip_policy_rules:
  a:
    ip_policy_id: ${BLOCK}
    cidr: 10.0.1.0/24
    action: deny
    description: after
${keepProtected ? RULE_P : ''}  c:
    ip_policy_id: ${OFFICE}
    cidr: 10.0.4.0/24
    action: allow
reserved_addrs:
  bastion:
    description: SSH bastion
    region: eu
    protect: true
`;
}

type Json = Record<string, unknown>;
type Mutation = (file: Json) => void;

const actionsOf = (file: Json): Json[] => (file.plan as { actions: Json[] }).actions;

/** Requests someone might slip into the file: each of them the account or the manifests do not ask for. */
const HOSTILE: readonly Json[] = [
  { method: 'DELETE', path: `/ip_policy_rules/${IDS.u}`, op: 'delete', kind: 'ip_policy_rules' },
  { method: 'DELETE', path: `/ip_policy_rules/${IDS.p}`, op: 'delete', kind: 'ip_policy_rules' },
  { method: 'DELETE', path: `/reserved_addrs/${IDS.bastion}`, op: 'delete', kind: 'reserved_addrs' },
  {
    method: 'DELETE',
    path: `/ip_policy_rules/${id('ipr_', 'NeverThere')}`,
    op: 'delete',
    kind: 'ip_policy_rules',
  },
  {
    method: 'PATCH',
    path: `/ip_policy_rules/${IDS.p}`,
    body: { cidr: '10.0.3.7/32' },
    op: 'update',
    kind: 'ip_policy_rules',
  },
  {
    method: 'PATCH',
    path: `/ip_policy_rules/${IDS.a}`,
    body: { description: 'after' },
    op: 'update',
    kind: 'ip_policy_rules',
  },
  {
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ip_policy_id: OFFICE, cidr: '0.0.0.0/0', action: 'allow' },
    op: 'create',
    kind: 'ip_policy_rules',
  },
  {
    method: 'PUT',
    path: `/edges/tcp/${id('edgtcp_', 'Nowhere')}/ip_restriction`,
    body: {},
    op: 'put-module',
    kind: 'tcp_edges',
  },
];
const KEYS = [
  'update:ip_policy_rules.a',
  'delete:ip_policy_rules.b',
  'create:ip_policy_rules.c',
  'delete:ip_policy_rules.u',
  'create:ip_policy_rules.zz',
];
const VALUES = [
  'after',
  'before',
  '10.0.3.7/32',
  '0.0.0.0/0',
  'allow',
  null,
  7,
  { $sensitive: 'sha256:00' },
  { $createdBy: 'create:ip_policy_rules.c' },
];
const FIELDS = ['description', 'cidr', 'action', 'ip_policy_id', 'metadata', 'region'];

const hostileAction = fc.record({ request: fc.constantFrom(...HOSTILE), key: fc.constantFrom(...KEYS) }).map(
  ({ request, key }): Json => ({
    key,
    name: key.slice(key.lastIndexOf('.') + 1),
    change: key.slice(key.indexOf(':') + 1),
    sensitive_paths: [],
    depends_on: [],
    marker: null,
    source: null,
    ...request,
  }),
);

/** Applied to the `at`-th action modulo how many there are; nothing when there is none. */
const onAction =
  (at: number, edit: (action: Json, file: Json) => void): Mutation =>
  (file) => {
    const actions = actionsOf(file);
    const action = actions[at % Math.max(1, actions.length)];
    if (action !== undefined) edit(action, file);
  };

/** Sets one field of the `at`-th action. */
const setField = (at: number, field: string, value: unknown): Mutation =>
  onAction(at, (action) => {
    if (value === undefined) delete action[field];
    else action[field] = value;
  });

const actionEdit: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.nat(), fc.constantFrom(...KEYS)).map(([at, key]) => setField(at, 'key', key)),
  fc.tuple(fc.nat(), fc.constantFrom(...OPERATIONS)).map(([at, op]) => setField(at, 'op', op)),
  fc
    .tuple(fc.nat(), fc.constantFrom('POST', 'PATCH', 'PUT', 'DELETE'))
    .map(([at, method]) => setField(at, 'method', method)),
  fc
    .tuple(fc.nat(), fc.constantFrom(...HOSTILE.map((request) => request.path)))
    .map(([at, path]) => setField(at, 'path', path)),
  fc.tuple(fc.nat(), fc.constantFrom(...FIELDS), fc.constantFrom(...VALUES)).map(([at, field, value]) =>
    onAction(at, (action) => {
      action.body = { ...(action.body as Json | undefined), [field]: value };
    }),
  ),
  fc.nat().map((at) => setField(at, 'body', undefined)),
  fc
    .tuple(fc.nat(), fc.constantFrom(['/description'], ['/cidr'], []))
    .map(([at, paths]) => setField(at, 'sensitive_paths', paths)),
  fc
    .tuple(fc.nat(), fc.constantFrom(null, { owner: 'default', name: 'b' }, { owner: 'other', name: 'c' }))
    .map(([at, value]) => setField(at, 'marker', value)),
  fc
    .tuple(fc.nat(), fc.constantFrom('x', 'ip_policy_rules.zz'))
    .map(([at, name]) => setField(at, 'name', name)),
);

const safetyEdit: fc.Arbitrary<Mutation> = fc.constantFrom<Mutation>(
  (file) => {
    file.safety = null;
  },
  (file) => {
    (file.plan as Json).refusal = null;
  },
  (file) => {
    (file.plan as Json).refusal = { code: 'protected', message: 'edited' };
  },
  (file) => {
    const facts = (file.safety as { facts?: Json } | null)?.facts;
    if (facts !== undefined) facts.destroys = [];
  },
  (file) => {
    const context = (file.safety as { context?: Json } | null)?.context;
    if (context !== undefined) context.force = true;
  },
);

const structuralEdit: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.nat(), hostileAction).map(
    ([at, action]): Mutation =>
      (file) => {
        const actions = actionsOf(file);
        actions.splice(at % (actions.length + 1), 0, action);
      },
  ),
  fc.nat().map(
    (at): Mutation =>
      (file) => {
        const actions = actionsOf(file);
        if (actions.length > 0) actions.splice(at % actions.length, 1);
      },
  ),
  actionEdit,
);

/**
 * Edits that change nothing the apply may act on: what a person reads of an
 * action (its name and change), and a delete of an object that is not there
 * (the account already holds its effect).
 */
const benignEdit: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.nat(), fc.constantFrom('renamed', 'ip_policy_rules.zz')).map(([at, text]) =>
    onAction(at, (action) => {
      action.name = text;
      action.change = text;
    }),
  ),
  fc.nat().map(
    (at): Mutation =>
      (file) => {
        const actions = actionsOf(file);
        // The count makes the key unique: a key given twice is a broken file.
        const name = `never-there-${actions.length}`;
        actions.splice(at % (actions.length + 1), 0, {
          ...(HOSTILE[3] as Json),
          key: `delete:ip_policy_rules.${name}`,
          name,
          change: `ip_policy_rules.${name}`,
          sensitive_paths: [],
          depends_on: [],
          marker: null,
          source: null,
        });
      },
  ),
);

/** One case: the base account (refused or not) and the edits made to its real saved plan. */
const cases = fc.record({
  refused: fc.boolean(),
  kind: fc.constantFrom('edits', 'safety', 'benign'),
  edits: fc.array(structuralEdit, { minLength: 1, maxLength: 3 }),
  safety: fc.array(safetyEdit, { minLength: 0, maxLength: 2 }),
  benign: fc.array(benignEdit, { minLength: 1, maxLength: 2 }),
});

interface Outcome {
  readonly code: number | null;
  readonly stderr: string;
  /** Requests other than GETs, by route. */
  readonly writes: Readonly<Record<string, number>>;
  readonly account: unknown;
}

interface Base {
  readonly dir: string;
  /** The account every case starts from, as the emulator saved it. */
  readonly snapshot: string;
  readonly refused: boolean;
  /** What a genuine apply of the unedited file gives. */
  readonly genuine: Outcome;
}

/** Runs the property for `numRuns` cases from `seed`, each on an emulator started from one saved account. */
export async function checkSavedPlanProperty(numRuns: number, seed: number): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'edgesync-plan-property-'));
  try {
    const bases = new Map<boolean, Base>();
    for (const refused of [false, true])
      bases.set(refused, await prepareBase(join(root, String(refused)), refused));
    expect(bases.get(false)?.genuine.code, bases.get(false)?.genuine.stderr).toBe(0);
    expect(bases.get(true)?.genuine.code, bases.get(true)?.genuine.stderr).toBe(4);
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(cases, async ({ refused, kind, edits, safety, benign }) => {
        const base = bases.get(refused) as Base;
        runs += 1;

        const outcome = await planAndApply(base, `case-${runs}`, (file) => {
          const chosen = kind === 'edits' ? [...edits, ...safety] : kind === 'safety' ? safety : benign;
          for (const edit of chosen) edit(file);
        });

        if (outcome.code === 0) {
          expect(outcome.writes).toEqual(base.genuine.writes);
          expect(outcome.account).toEqual(base.genuine.account);
        } else {
          expect(outcome.writes, outcome.stderr).toEqual({});
        }
        // Nothing but the manifests and the account decides: a file edited in its safety block, or in
        // what it only shows, applies exactly as the genuine one does, or is refused exactly as it is.
        if (kind !== 'edits') expect(outcome.code, outcome.stderr).toBe(base.genuine.code);
      }),
      { numRuns, seed },
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function prepareBase(dir: string, refused: boolean): Promise<Base> {
  await mkdir(join(dir, 'manifests'), { recursive: true });
  await writeFile(join(dir, 'manifests/all.yaml'), manifest(!refused));
  const snapshot = join(dir, 'account.json');
  await (await startEmulator({ seed: SEED, dataFile: snapshot })).close();
  const base = { dir, snapshot, refused };
  return {
    ...base,
    genuine: await planAndApply({ ...base, genuine: undefined as never }, 'genuine', () => {}),
  };
}

/**
 * On an emulator started from the base's account: `plan --out`, the file
 * edited, `apply --plan` of it. (Planned anew each time: the service's `uri`
 * fields hold the emulator's port, and so do the fingerprints.)
 */
async function planAndApply(base: Base, name: string, edit: (file: Json) => void): Promise<Outcome> {
  const dataFile = join(base.dir, `${name}.json`);
  const planFile = `${name}.plan.json`;
  await copyFile(base.snapshot, dataFile);
  const emulator = await startEmulator({ dataFile });
  try {
    const options = { emulator, cwd: base.dir };
    const planned = await runEdgesyncInProcess(['plan', 'manifests', '--out', planFile], options);
    expect(planned.code, planned.stderr).toBe(base.refused ? 4 : 0);
    const file = JSON.parse(await readFile(join(base.dir, planFile), 'utf8')) as Json;
    edit(file);
    await writeFile(join(base.dir, planFile), JSON.stringify(file, null, 2));
    const before = await writesByRoute(emulator);
    expect(before).toEqual({});
    const run = await runEdgesyncInProcess(['apply', '--plan', planFile, '--yes', 'manifests'], options);
    return {
      code: run.code,
      stderr: run.stderr,
      writes: await writesByRoute(emulator),
      account: await accountOf(emulator),
    };
  } finally {
    await emulator.close();
    await rm(dataFile, { force: true });
  }
}

async function writesByRoute(emulator: RunningEmulator): Promise<Record<string, number>> {
  const stats = await emulatorStats({ emulator });
  return Object.fromEntries(Object.entries(stats.byRoute).filter(([route]) => !route.startsWith('GET ')));
}

/** The account as the apply leaves it, without what the service picks (IDs of new objects, times). */
async function accountOf(emulator: RunningEmulator): Promise<unknown> {
  const inspect = { inspect: inspectClient(emulator) };
  const rules = await listAll<Json>(inspect, '/ip_policy_rules', 'ip_policy_rules');
  const addrs = await listAll<Json>(inspect, '/reserved_addrs', 'reserved_addrs');
  const known = new Set(Object.values(IDS));
  const plain = ({
    created_at: _created,
    uri: _uri,
    id: objectId,
    addr: _addr,
    ip_policy,
    ...rest
  }: Json): Json => ({
    ...rest,
    id: known.has(String(objectId)) ? objectId : 'new',
    ip_policy: (ip_policy as Json | undefined)?.id,
  });
  return {
    rules: rules.map(plain).sort((x, y) => String(x.cidr).localeCompare(String(y.cidr))),
    addrs: addrs.map(plain),
  };
}
