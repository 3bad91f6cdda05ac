import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan-changes.js';
import {
  refillSecrets,
  SavedPlanError,
  sensitiveHash,
  serializeSavedPlan,
  toSavedPlan,
} from '../../src/plan/saved-plan.js';
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
  it('round-trips with secrets replaced by their hash, and refills them from the manifests', () => {
    const desired = desiredWith(SECRET);
    const plan = planChanges(desired, live, { owner: OWNER });

    const text = serializeSavedPlan(toSavedPlan(plan, ['manifests']));
    const saved = parseSavedPlan(text);
    const refilled = refillSecrets(saved, desired);

    expect(text).not.toContain(SECRET);
    expect(text).toContain(sensitiveHash(SECRET).$sensitive);
    expect(JSON.parse(text)).toMatchObject({
      format_version: 2,
      owner: OWNER,
      manifest_paths: ['manifests'],
      desired_hash: desired.hash,
      plan: { format_version: 2 },
    });
    expect(saved).toMatchObject({
      formatVersion: 2,
      owner: OWNER,
      manifestPaths: ['manifests'],
      desiredHash: desired.hash,
    });
    expect(saved.fingerprints).toEqual(plan.fingerprints);
    expect(refilled.actions).toEqual(plan.actions);
    expect(saved.plan.changes).toEqual(plan.changes);
    expect(saved.plan.summary).toEqual(plan.summary);
    expect(saved.plan.safety).toEqual(plan.safety);
    expect(JSON.parse(text).safety.facts).toHaveProperty('desired_entries');
    expect(refillSecrets(saved, plan).actions).toEqual(plan.actions);
  });

  it('refuses to refill when the secret in the manifests changed', () => {
    const saved = parseSavedPlan(
      serializeSavedPlan(toSavedPlan(planChanges(desiredWith(SECRET), live, { owner: OWNER }), [])),
    );

    expect(() => refillSecrets(saved, desiredWith('another-secret'))).toThrow(
      expect.objectContaining({ code: 'plan_stale' }),
    );
  });

  it.each([
    { title: 'not JSON', text: '{', message: /not JSON/ },
    {
      title: 'another format version',
      text: '{"formatVersion":1}',
      message: /format_version: expected 2 \(found 1\) \(a plan saved by an older edgesync: plan again\)/,
    },
    {
      title: 'a broken action',
      text: JSON.stringify({
        format_version: 2,
        owner: 'o',
        desired_hash: 'h',
        manifest_paths: [],
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
        format_version: 2,
        owner: 'o',
        desiredHash: 'h',
        manifestPaths: [],
        fingerprints: {},
      }),
      message: /desired_hash: expected a string.*manifest_paths: expected a list of strings/,
    },
  ])('rejects $title', ({ text, message }) => {
    let caught: unknown;
    try {
      parseSavedPlan(text);
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(SavedPlanError);
    expect((caught as SavedPlanError).code).toBe('plan_file_invalid');
    expect((caught as SavedPlanError).message).toMatch(message);
  });
});
