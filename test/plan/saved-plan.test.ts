import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { SavedPlanError, sensitiveHash, serializeSavedPlan, toSavedPlan } from '../../src/plan/saved-plan.js';
import { SavedPlanJudge } from '../../src/plan/saved-plan-judge.js';
import { parseSavedPlan } from '../../src/plan/saved-plan-reader.js';
import { desiredState, entry, liveEdge, liveState, marked, OWNER } from './builders.js';

const SECRET = 'route-oidc-secret-123';

function desiredWith(secret: string) {
  return desiredState([
    entry('https_edges', 'web', {
      hostports: ['web.example.com:443'],
      routes: [
        {
          match: '/app',
          oidc: { issuer: 'https://id.example.com', client_id: 'app', client_secret: secret },
        },
      ],
    }),
  ]);
}

const live = liveState([
  liveEdge('edghts_1', {
    hostports: ['web.example.com:443'],
    metadata: marked('web'),
    routes: [{ id: 'edghtsrt_app', match_type: 'path_prefix', match: '/app', oidc: null }],
  }),
]);

describe('saved plans', () => {
  it('round-trips with secrets replaced by their hash, and is confirmed by the same plan made again', () => {
    const desired = desiredWith(SECRET);
    const plan = planChanges(desired, live, { kinds: KINDS, owner: OWNER, targets: ['https_edges'] });

    const text = serializeSavedPlan(
      toSavedPlan(plan, ['manifests'], { targets: ['https_edges'], excludes: [] }),
    );
    const saved = parseSavedPlan(text, KINDS);
    const judge = new SavedPlanJudge(
      planChanges(desired, live, { kinds: KINDS, owner: OWNER, targets: ['https_edges'] }),
      live,
      { kinds: KINDS },
    );
    for (const action of saved.plan.actions) judge.take(action);
    const judgement = judge.finish(saved.fingerprints);

    expect(text).not.toContain(SECRET);
    expect(text).toContain(sensitiveHash(SECRET).$sensitive);
    expect(JSON.parse(text)).toMatchObject({
      format_version: 3,
      owner: OWNER,
      manifest_paths: ['manifests'],
      narrowing: { targets: ['https_edges'], excludes: [] },
      desired_hash: desired.hash,
      plan: { format_version: 2 },
    });
    expect(saved).toMatchObject({
      formatVersion: 3,
      owner: OWNER,
      manifestPaths: ['manifests'],
      narrowing: { targets: ['https_edges'], excludes: [] },
      desiredHash: desired.hash,
    });
    expect(saved.fingerprints).toEqual(plan.fingerprints);
    expect(saved.plan.actions.map((action) => action.key)).toEqual(plan.actions.map((action) => action.key));
    expect(saved.plan.changes).toEqual(plan.changes);
    expect(saved.plan.summary).toEqual(plan.summary);
    expect(saved.plan.safety).toEqual(plan.safety);
    expect(JSON.parse(text).safety.facts).toHaveProperty('desired_entries');
    expect(judgement).toEqual({ confirmed: plan.actions.length, alreadyApplied: [], differences: [] });
  });

  it('finds a difference when the secret in the manifests is not the one whose hash the file holds', () => {
    const saved = parseSavedPlan(
      serializeSavedPlan(
        toSavedPlan(planChanges(desiredWith(SECRET), live, { kinds: KINDS, owner: OWNER }), []),
      ),
      KINDS,
    );
    const judge = new SavedPlanJudge(
      planChanges(desiredWith('another-secret'), live, { kinds: KINDS, owner: OWNER }),
      live,
      { kinds: KINDS },
    );

    for (const action of saved.plan.actions) judge.take(action);
    const judgement = judge.finish(saved.fingerprints);

    expect(judgement.confirmed).toBe(saved.plan.actions.length - 1);
    expect(judgement.differences.join('\n')).toMatch(
      /^put-module:https_edges\.web\.routes\[edghtsrt_app\]\.oidc: PUT .*another body/m,
    );
    expect(judgement.differences.join('\n')).not.toContain('another-secret');
  });

  it.each([
    { title: 'not JSON', text: '{', message: /not JSON/ },
    {
      title: 'another format version',
      text: '{"formatVersion":1}',
      message: /format_version: expected 3 \(found 1\) \(a plan saved by an older edgesync: plan again\)/,
    },
    {
      title: 'a broken action',
      text: JSON.stringify({
        format_version: 3,
        owner: 'o',
        desired_hash: 'h',
        manifest_paths: [],
        narrowing: { targets: [], excludes: [] },
        fingerprints: {},
        plan: {
          summary: {},
          changes: [],
          errors: [],
          actions: [{ key: 'a', op: 'explode', kind: 'x', depends_on: ['later'] }],
        },
      }),
      message: /op: unknown operation.*kind: unknown kind.*expected method and path.*depends_on/,
    },
    {
      title: 'camelCase keys',
      text: JSON.stringify({
        format_version: 3,
        owner: 'o',
        desiredHash: 'h',
        manifestPaths: [],
        fingerprints: {},
      }),
      message: /desired_hash: expected a string.*manifest_paths: expected a list of strings/,
    },
    {
      title: 'nesting deeper than any plan the docs allow, before it is parsed',
      text: `{"format_version":3,"plan":{"actions":[{"key":"a","body":${'['.repeat(200)}${']'.repeat(200)}}]}}`,
      message: /refused: it is nested deeper than 128 levels in plan\.actions\[0\]/,
    },
    {
      title: 'an action key given twice',
      text: JSON.stringify({
        format_version: 3,
        owner: 'o',
        desired_hash: 'h',
        manifest_paths: [],
        narrowing: { targets: [], excludes: [] },
        fingerprints: {},
        plan: {
          summary: {},
          changes: [],
          errors: [],
          actions: ['a', 'a'].map((key) => ({
            key,
            op: 'delete',
            kind: 'ip_policy_rules',
            method: 'DELETE',
            path: '/ip_policy_rules/ipr_1',
            sensitive_paths: [],
            depends_on: [],
          })),
        },
      }),
      message: /plan\.actions\[1\]\.key: "a" is given twice/,
    },
    {
      title: 'a narrowing that names no kind',
      text: JSON.stringify({
        format_version: 3,
        owner: 'o',
        desired_hash: 'h',
        manifest_paths: [],
        narrowing: { targets: ['everything'], excludes: [] },
        fingerprints: {},
        plan: { summary: {}, changes: [], errors: [], actions: [] },
      }),
      message: /narrowing: expected targets and excludes, each a list of KIND or KIND\.NAME/,
    },
  ])('rejects $title', ({ text, message }) => {
    let caught: unknown;
    try {
      parseSavedPlan(text, KINDS);
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(SavedPlanError);
    expect((caught as SavedPlanError).code).toBe('plan_file_invalid');
    expect((caught as SavedPlanError).message).toMatch(message);
  });
});
