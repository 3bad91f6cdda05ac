import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { desiredState, entry, liveEdge, liveState, marked, OWNER } from '../plan/builders.js';
import { BUILT_CLI } from '../support/built-cli.js';
import { applyPlan, planAgainst, startAccessHarness } from './access-harness.js';

/**
 * A hostport is served by one edge: the emulator refuses a second edge
 * claiming one (400 conflict), and the plan says so first, with the place in
 * the manifest, instead of `apply` failing halfway. An edge of ours that
 * lets a hostport go does so before another takes it.
 */
const at = (line: number) => ({ file: 'manifests/web.yaml', line, column: 7 });
const site = (name: string, hostports: string[], line: number) =>
  entry('https_edges', name, { hostports }, { fieldLocations: { '/hostports/0': at(line) } });

describe('hostports at plan time', () => {
  it('two entries claiming one hostport: unique_key_conflict at the second, naming the first', () => {
    const plan = planChanges(
      desiredState([site('blog', ['www.example.com:443'], 12), site('shop', ['www.example.com:443'], 30)]),
      liveState([]),
      { kinds: KINDS, owner: OWNER },
    );

    expect(plan.errors).toEqual([
      {
        code: 'unique_key_conflict',
        message:
          'https_edges.shop: hostport www.example.com:443 is also claimed by https_edges.blog (manifests/web.yaml:12:7); the service gives it to one object only',
        source: at(30),
      },
    ]);
  });

  it.each([
    { holder: 'no marker', metadata: undefined, says: 'not owned by edgesync' },
    {
      holder: 'another owner',
      metadata: marked('www', 'team-b'),
      says: 'owned by "team-b" as https_edges.www',
    },
  ])(
    'held by an edge with $holder: unique_key_taken at the hostport, with the id that adopts it',
    ({ metadata, says }) => {
      const live = liveState([
        liveEdge('edghts_Held', { hostports: ['www.example.com:443'], ...(metadata ? { metadata } : {}) }),
      ]);

      const plan = planChanges(desiredState([site('blog', ['www.example.com:443'], 12)]), live, {
        kinds: KINDS,
        owner: OWNER,
      });

      expect(plan.errors).toEqual([
        {
          code: 'unique_key_taken',
          message: `https_edges.blog: hostport www.example.com:443 is already held by https_edges edghts_Held (${says}); the service gives it to one object only. To manage that object here, add \`id: edghts_Held\` to this entry; otherwise change the entry or remove edghts_Held`,
          source: at(12),
          entry: { kind: 'https_edges', name: 'blog' },
        },
      ]);
    },
  );

  it('adopting the holder by id plans an adoption, no error', () => {
    const live = liveState([liveEdge('edghts_Held', { hostports: ['www.example.com:443'] })]);
    const adopting = desiredState([
      entry('https_edges', 'blog', { hostports: ['www.example.com:443'] }, { id: 'edghts_Held' }),
    ]);

    const plan = planChanges(adopting, live, { kinds: KINDS, owner: OWNER });

    expect(plan.errors).toEqual([]);
    expect(plan.changes.map((change) => [change.op, change.id])).toEqual([['adopt', 'edghts_Held']]);
  });

  it('an edge of ours that is pruned frees its hostport before the new edge takes it', () => {
    const live = liveState([
      liveEdge('edghts_Old', { hostports: ['www.example.com:443'], metadata: marked('old') }),
    ]);

    const plan = planChanges(desiredState([site('blog', ['www.example.com:443'], 12)]), live, {
      kinds: KINDS,
      owner: OWNER,
      force: true,
    });

    expect(plan.errors).toEqual([]);
    const create = plan.actions.find((action) => action.op === 'create');
    expect(create?.dependsOn).toEqual(['delete:https_edges.old']);
  });

  it('a hostport moving between two of our edges: the edge that drops it goes first', () => {
    const live = liveState([
      liveEdge('edghts_Blog', { hostports: ['www.example.com:443'], metadata: marked('blog') }),
      liveEdge('edghts_Shop', { hostports: ['shop.example.com:443'], metadata: marked('shop') }),
    ]);

    const plan = planChanges(
      desiredState([
        site('blog', ['blog.example.com:443'], 12),
        site('shop', ['shop.example.com:443', 'www.example.com:443'], 30),
      ]),
      live,
      { kinds: KINDS, owner: OWNER },
    );

    expect(plan.errors).toEqual([]);
    expect(plan.actions.find((action) => action.name === 'shop')?.dependsOn).toEqual([
      'update:https_edges.blog',
    ]);
  });
});

describe('hostports against the emulator', () => {
  it('the plan moves a hostport between two edges in an order the emulator accepts', async () => {
    const harness = await startAccessHarness({});
    try {
      const before = [site('blog', ['www.example.com:443'], 12), site('shop', ['shop.example.com:443'], 30)];
      await applyPlan(harness, await planAgainst(harness, before));
      const after = [
        site('blog', ['blog.example.com:443'], 12),
        site('shop', ['shop.example.com:443', 'www.example.com:443'], 30),
      ];
      // Without the order the two PATCHes run at once and the second may be refused.
      const result = await applyPlan(harness, await planAgainst(harness, after), { concurrency: 4 });
      expect(result.actions.map((action) => action.outcome)).toEqual(['done', 'done']);
      expect((await planAgainst(harness, after)).actions).toEqual([]);
    } finally {
      await harness.emulator.close();
    }
  });

  it('a hostport held by an edge of the account is a plan error, not a failed apply', async () => {
    const harness = await startAccessHarness({
      https_edges: [{ id: 'edghts_HeldByHand00000000000000000', hostports: ['www.example.com:443'] }],
    });
    try {
      const plan = await planAgainst(harness, [site('blog', ['www.example.com:443'], 12)]);
      expect(plan.errors.map((error) => error.code)).toEqual(['unique_key_taken']);
      expect(plan.errors[0]?.message).toContain('add `id: edghts_HeldByHand00000000000000000`');
    } finally {
      await harness.emulator.close();
    }
  });
});

describe('hostports in edgesync validate, as a process', () => {
  it('two edges of the manifests claiming one hostport (any case): exit 1 at the second, naming the first', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edgesync-hostports-'));
    try {
      await writeFile(
        join(dir, 'web.yaml'),
        ['version: 1', 'https_edges:', '  web:', '    hostports: [www.example.com:443]', ''].join('\n'),
      );
      await writeFile(
        join(dir, 'shop.yaml'),
        [
          'version: 1',
          'https_edges:',
          '  shop:',
          '    hostports:',
          '      - shop.example.com:443',
          '      - WWW.example.com:443',
          '',
        ].join('\n'),
      );
      const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
        execFile(process.execPath, [BUILT_CLI, 'validate', dir], (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : Number(error.code), output: stdout + stderr });
        });
      });
      expect(code).toBe(1);
      // Files are read in name order: shop.yaml claims it first.
      expect(output).toMatch(
        /web\.yaml:4:17: https_edges\.web\.hostports\[0\]: www\.example\.com:443 is also claimed by https_edges\.shop at .*shop\.yaml:6:9/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
