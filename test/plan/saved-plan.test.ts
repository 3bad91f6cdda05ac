import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { SavedPlanError, serializeSavedPlan, toSavedPlan } from '../../src/plan/saved-plan.js';
import { SavedPlanJudge } from '../../src/plan/saved-plan-judge.js';
import { parseSavedPlan } from '../../src/plan/saved-plan-reader.js';
import { planKeyFrom, secretDigest } from '../../src/plan/secret-digest.js';
import { desiredState, entry, liveEdge, liveState, marked, OWNER } from './builders.js';

const SECRET = 'route-oidc-secret-123';
const KEY = planKeyFrom(Buffer.alloc(32, 7), 'test key');
const OTHER_KEY = planKeyFrom(Buffer.alloc(32, 8), 'another test key');
const OIDC_PUT = /^put-module:https_edges\.web\.routes\[edghtsrt_app\]\.oidc: PUT .*another body/m;

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
  it('round-trips with secrets replaced by their keyed digest, and is confirmed by the same plan made again', () => {
    const desired = desiredWith(SECRET);
    const plan = planChanges(desired, live, { kinds: KINDS, owner: OWNER, targets: ['https_edges'] });

    const text = serializeSavedPlan(
      toSavedPlan(plan, ['manifests'], { targets: ['https_edges'], excludes: [] }, KEY),
    );
    const saved = parseSavedPlan(text, KINDS);
    const judge = new SavedPlanJudge(
      planChanges(desired, live, { kinds: KINDS, owner: OWNER, targets: ['https_edges'] }),
      live,
      { kinds: KINDS, key: KEY },
    );
    for (const action of saved.plan.actions) judge.take(action);
    const judgement = judge.finish(saved.fingerprints);

    expect(text).not.toContain(SECRET);
    expect(text).toContain(
      secretDigest(KEY, { owner: OWNER, kind: 'https_edges', name: 'web', path: '/client_secret' }, SECRET),
    );
    expect(text).not.toContain(KEY.bytes.toString('hex'));
    expect(JSON.parse(text)).toMatchObject({
      format_version: 5,
      owner: OWNER,
      manifest_paths: ['manifests'],
      narrowing: { targets: ['https_edges'], excludes: [] },
      plan_key_id: KEY.id,
      desired_hash: desired.hash,
      plan: { format_version: 2 },
    });
    expect(saved).toMatchObject({
      formatVersion: 5,
      owner: OWNER,
      manifestPaths: ['manifests'],
      narrowing: { targets: ['https_edges'], excludes: [] },
      planKeyId: KEY.id,
      desiredHash: desired.hash,
    });
    expect(saved.fingerprints).toEqual(plan.fingerprints);
    expect(saved.plan.actions.map((action) => action.key)).toEqual(plan.actions.map((action) => action.key));
    expect(saved.plan.changes).toEqual(plan.changes);
    expect(saved.plan.summary).toEqual(plan.summary);
    expect(saved.plan.safety).toEqual(plan.safety);
    expect(JSON.parse(text).safety.facts).toHaveProperty('desired_entries');
    expect(judgement).toEqual({
      confirmed: plan.actions.length,
      alreadyApplied: [],
      differences: [],
      keyHints: [],
    });
  });

  /** The plan of `desiredWith(secret)` saved under `key`, judged against the plan of `now` under `applyKey`. */
  function judged(
    saved: { secret: string; key?: typeof KEY | undefined },
    now: { secret: string; key?: typeof KEY | undefined },
  ) {
    const file = parseSavedPlan(
      serializeSavedPlan(
        toSavedPlan(
          planChanges(desiredWith(saved.secret), live, { kinds: KINDS, owner: OWNER }),
          [],
          undefined,
          saved.key,
        ),
      ),
      KINDS,
    );
    const judge = new SavedPlanJudge(
      planChanges(desiredWith(now.secret), live, { kinds: KINDS, owner: OWNER }),
      live,
      { kinds: KINDS, key: now.key },
    );
    for (const action of file.plan.actions) judge.take(action);
    return { file, judgement: judge.finish(file.fingerprints) };
  }

  it('finds a difference when the secret in the manifests is not the one whose digest the file holds', () => {
    const { file, judgement } = judged({ secret: SECRET, key: KEY }, { secret: 'another-secret', key: KEY });

    expect(judgement.confirmed).toBe(file.plan.actions.length - 1);
    expect(judgement.differences.join('\n')).toMatch(OIDC_PUT);
    expect(judgement.differences.join('\n')).not.toContain('another-secret');
    expect(judgement.keyHints).toEqual([]);
  });

  it('without a key, saves no digest of a secret, and a plan that sends one is not confirmed: the hint says how to give the key', () => {
    const { file, judgement } = judged({ secret: SECRET }, { secret: SECRET, key: KEY });
    const text = serializeSavedPlan(
      toSavedPlan(planChanges(desiredWith(SECRET), live, { kinds: KINDS, owner: OWNER }), []),
    );

    expect(JSON.parse(text).plan_key_id).toBeNull();
    expect(text).toContain('"$sensitive": "withheld"');
    expect(text).not.toMatch(/sha256|hmac/);
    expect(file.planKeyId).toBeNull();
    expect(judgement.differences.join('\n')).toMatch(OIDC_PUT);
    expect(judgement.keyHints).toEqual([expect.stringContaining('made without --plan-key-file')]);
  });

  it.each([
    ['no key', undefined, /digested with plan key [0-9a-f]{16}; give this apply the same key/],
    ['another key', OTHER_KEY, /and this apply has another key/],
  ])(
    'with %s at apply, a saved digest is not confirmed, and the hint names the key id',
    (_case, applyKey, hint) => {
      const { judgement } = judged({ secret: SECRET, key: KEY }, { secret: SECRET, key: applyKey });

      expect(judgement.differences.join('\n')).toMatch(OIDC_PUT);
      expect(judgement.keyHints).toEqual([expect.stringMatching(hint)]);
    },
  );

  it('binds a digest to its place: the same secret under another entry name or owner digests differently', () => {
    const place = { owner: OWNER, kind: 'https_edges', name: 'web', path: '/client_secret' };

    const digests = new Set([
      secretDigest(KEY, place, SECRET),
      secretDigest(KEY, { ...place, name: 'api' }, SECRET),
      secretDigest(KEY, { ...place, owner: 'other' }, SECRET),
      secretDigest(KEY, { ...place, path: '/description' }, SECRET),
      secretDigest(OTHER_KEY, place, SECRET),
    ]);

    expect(digests.size).toBe(5);
  });

  it('refuses a plan key under 32 bytes, saying how to make one', () => {
    expect(() => planKeyFrom(Buffer.alloc(31, 1), 'plan.key')).toThrow(
      /plan\.key: a plan key has at least 32 bytes \(found 31\); make one with: head -c 32 \/dev\/urandom/,
    );
  });

  it.each([
    { title: 'not JSON', text: '{', message: /not JSON/ },
    {
      title: 'another format version',
      text: '{"formatVersion":1}',
      message:
        /format_version: expected 5 \(found 1\) \(a plan saved by an older edgesync, whose plan files held a plain sha256 of each secret, which anyone who can read the file can test guesses against: plan again\)/,
    },
    {
      title: 'a broken action',
      text: JSON.stringify({
        format_version: 5,
        plan_key_id: null,
        owner: 'o',
        desired_hash: 'h',
        manifest_paths: [],
        narrowing: { targets: [], excludes: [] },
        fingerprints: {},
        context: {},
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
        format_version: 5,
        plan_key_id: null,
        owner: 'o',
        desiredHash: 'h',
        manifestPaths: [],
        fingerprints: {},
      }),
      message: /desired_hash: expected a string.*manifest_paths: expected a list of strings/,
    },
    {
      title: 'nesting deeper than any plan the docs allow, before it is parsed',
      text: `{"format_version":5,"plan":{"actions":[{"key":"a","body":${'['.repeat(200)}${']'.repeat(200)}}]}}`,
      message: /refused: it is nested deeper than 128 levels in plan\.actions\[0\]/,
    },
    {
      title: 'an action key given twice',
      text: JSON.stringify({
        format_version: 5,
        plan_key_id: null,
        owner: 'o',
        desired_hash: 'h',
        manifest_paths: [],
        narrowing: { targets: [], excludes: [] },
        fingerprints: {},
        context: {},
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
        format_version: 5,
        plan_key_id: null,
        owner: 'o',
        desired_hash: 'h',
        manifest_paths: [],
        narrowing: { targets: ['everything'], excludes: [] },
        fingerprints: {},
        context: {},
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
