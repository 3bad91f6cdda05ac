import { describe, expect, it } from 'vitest';
import { encodeMetadata, parseMetadata } from '../../src/kinds/ownership-marker.js';
import { KINDS } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import type { PlanOptions } from '../../src/plan/planner-options.js';
import {
  CORP_PEM,
  desiredState,
  entry,
  liveCa,
  liveRule,
  liveState,
  OWNER,
  PARTNER_PEM,
  POLICY,
} from './builders.js';

const options: PlanOptions = { kinds: KINDS, owner: OWNER };
const rule = (cidr: string) => ({ cidr, action: 'deny', ip_policy_id: POLICY });
const protectedMarker = (name: string): string =>
  encodeMetadata(undefined, { owner: OWNER, name, protect: true });

/** Two owned rules, `keep` and `guarded`; `guarded`'s live marker says protect. */
function account() {
  return liveState([
    liveRule('ipr_keep', {
      cidr: '10.0.1.0/24',
      action: 'deny',
      metadata: encodeMetadata(undefined, { owner: OWNER, name: 'keep' }),
    }),
    liveRule('ipr_guarded', { cidr: '10.0.2.0/24', action: 'deny', metadata: protectedMarker('guarded') }),
  ]);
}

describe('the ownership marker records protect', () => {
  it('writes protect only when true, and reads old markers without it as unprotected', () => {
    expect(encodeMetadata(undefined, { owner: 'o', name: 'n', protect: true })).toBe(
      '{"edgesync":{"name":"n","owner":"o","protect":true}}',
    );
    expect(parseMetadata('{"edgesync":{"name":"n","owner":"o","protect":true}}').marker).toEqual({
      owner: 'o',
      name: 'n',
      protect: true,
    });
    expect(parseMetadata('{"edgesync":{"name":"n","owner":"o"}}').marker).toEqual({ owner: 'o', name: 'n' });
    expect(parseMetadata('{"edgesync":{"name":"n","owner":"o","protect":"yes"}}').marker).toEqual({
      owner: 'o',
      name: 'n',
    });
  });

  it('creates a protected entry with protect in its marker', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'guarded', rule('10.0.2.0/24'), { protect: true }),
    ]);

    const plan = planChanges(desired, liveState([]), options);

    const body = plan.actions[0]?.request.body as { metadata: string };
    expect(parseMetadata(body.metadata).marker).toEqual({ owner: OWNER, name: 'guarded', protect: true });
  });

  it.each([
    ['turns protect on', false, true],
    ['turns protect off', true, false],
  ])('PATCHes the marker alone when an entry %s', (_title, before, after) => {
    const metadata = encodeMetadata(undefined, {
      owner: OWNER,
      name: 'r',
      ...(before ? { protect: true } : {}),
    });
    const live = liveState([liveRule('ipr_1', { cidr: '10.0.0.0/24', action: 'deny', metadata })]);

    const plan = planChanges(
      desiredState([entry('ip_policy_rules', 'r', rule('10.0.0.0/24'), { protect: after })]),
      live,
      options,
    );

    expect(plan.changes.map((change) => [change.op, change.reason])).toEqual([['update', 'protect changed']]);
    const body = plan.actions[0]?.request.body as { metadata: string };
    expect(parseMetadata(body.metadata).marker?.protect).toBe(after ? true : undefined);
    expect(plan.refusal).toBeUndefined();
  });
});

describe('a protected live object is never deleted or replaced', () => {
  it('refuses the delete when its entry is removed from the manifests', () => {
    const desired = desiredState([entry('ip_policy_rules', 'keep', rule('10.0.1.0/24'))]);

    const plan = planChanges(desired, account(), options);

    expect(plan.refusal?.code).toBe('protected');
    expect(plan.refusal?.message).toContain('ip_policy_rules.guarded');
    expect(plan.refusal?.message).toContain('set protect: false');
  });

  it('refuses with --force, and with every --max-destroy', () => {
    const desired = desiredState([entry('ip_policy_rules', 'keep', rule('10.0.1.0/24'))]);

    const plan = planChanges(desired, account(), { ...options, force: true, maxDestroy: { count: 100 } });

    expect(plan.refusal?.code).toBe('protected');
  });

  it('refuses when every entry is removed, even with --allow-empty and --force', () => {
    const plan = planChanges(desiredState([]), account(), { ...options, allowEmpty: true, force: true });

    expect(plan.refusal?.code).toBe('protected');
  });

  it.each([
    ['--target the removed entry', { targets: ['ip_policy_rules.guarded'] }],
    ['--target its kind', { targets: ['ip_policy_rules'] }],
    ['--exclude another entry', { excludes: ['ip_policy_rules.keep'] }],
  ])('refuses when the plan is narrowed: %s', (_title, narrowing) => {
    const desired = desiredState([entry('ip_policy_rules', 'keep', rule('10.0.9.0/24'))]);

    const plan = planChanges(desired, account(), { ...options, ...narrowing });

    expect(plan.changes.map((change) => change.address)).toContain('ip_policy_rules.guarded');
    expect(plan.refusal?.code).toBe('protected');
  });

  it('refuses in the daemon context', () => {
    const desired = desiredState([entry('ip_policy_rules', 'keep', rule('10.0.1.0/24'))]);

    const plan = planChanges(desired, account(), { ...options, context: 'daemon' });

    expect(plan.refusal?.code).toBe('protected');
  });

  it('refuses a replace in the same plan that sets protect: false (protect must be lifted on its own)', () => {
    const live = liveState([liveCa('ca_1', { pem: CORP_PEM, metadata: protectedMarker('corp') })]);
    const desired = desiredState([
      entry('certificate_authorities', 'corp', { ca_pem: PARTNER_PEM }, { protect: false }),
    ]);

    const plan = planChanges(desired, live, { ...options, force: true });

    expect(plan.changes.map((change) => change.op)).toEqual(['replace']);
    expect(plan.refusal?.code).toBe('protected');
  });

  it('deletes it once protect: false was applied in a change of its own', () => {
    const unprotected = liveState([
      liveRule('ipr_keep', {
        cidr: '10.0.1.0/24',
        action: 'deny',
        metadata: encodeMetadata(undefined, { owner: OWNER, name: 'keep' }),
      }),
      liveRule('ipr_guarded', {
        cidr: '10.0.2.0/24',
        action: 'deny',
        metadata: encodeMetadata(undefined, { owner: OWNER, name: 'guarded' }),
      }),
    ]);
    const desired = desiredState([entry('ip_policy_rules', 'keep', rule('10.0.1.0/24'))]);

    const plan = planChanges(desired, unprotected, options);

    expect(plan.refusal).toBeUndefined();
    expect(plan.summary.delete).toBe(1);
  });

  it('stays refused when planned again for a saved plan applied with --force', () => {
    const desired = desiredState([entry('ip_policy_rules', 'keep', rule('10.0.1.0/24'))]);

    const plan = planChanges(desired, account(), { ...options, context: 'saved-plan', force: true });

    expect(plan.refusal?.code).toBe('protected');
  });
});

describe('the safety policy by context', () => {
  const owned = Array.from({ length: 12 }, (_, index) =>
    liveRule(`ipr_${index}`, {
      cidr: `10.1.${index}.0/24`,
      action: 'deny',
      metadata: encodeMetadata(undefined, { owner: OWNER, name: `r${index}` }),
    }),
  );
  const keepFirst = (count: number) =>
    desiredState(
      owned
        .slice(0, count)
        .map((_, index) => entry('ip_policy_rules', `r${index}`, rule(`10.1.${index}.0/24`))),
    );

  it('lifts max-destroy with --force on the CLI but never in the daemon, and tells the daemon what to do', () => {
    const cli = planChanges(keepFirst(2), liveState(owned), { ...options, force: true });
    const daemon = planChanges(keepFirst(2), liveState(owned), {
      ...options,
      force: true,
      context: 'daemon',
    });

    expect(cli.refusal).toBeUndefined();
    expect(daemon.refusal?.code).toBe('max-destroy');
    expect(daemon.refusal?.message).toContain('edgesync apply --force');
    expect(daemon.refusal?.message).not.toContain('pass --force');
  });

  it('judges the plan made again for a saved plan with the --force of the apply', () => {
    const without = planChanges(keepFirst(2), liveState(owned), { ...options, context: 'saved-plan' });
    const forced = planChanges(keepFirst(2), liveState(owned), {
      ...options,
      context: 'saved-plan',
      force: true,
    });

    expect(without.refusal?.code).toBe('max-destroy');
    expect(forced.refusal).toBeUndefined();
  });

  it('never prunes from an empty manifest set in the daemon, and says what to do instead of --allow-empty', () => {
    const cli = planChanges(desiredState([]), liveState(owned), {
      ...options,
      allowEmpty: true,
      force: true,
    });
    const daemon = planChanges(desiredState([]), liveState(owned), {
      ...options,
      allowEmpty: true,
      context: 'daemon',
    });

    expect(cli.refusal).toBeUndefined();
    expect(daemon.refusal?.code).toBe('empty-desired');
    expect(daemon.refusal?.message).toContain('restore the manifests');
    expect(daemon.refusal?.message).toContain('`edgesync apply --allow-empty` once by hand');
    expect(daemon.refusal?.message).not.toContain('pass --allow-empty');
  });

  it('in the daemon, refuses any DELETE planned from an incomplete read (the CLI only skips prunes)', () => {
    const live = liveState(
      [
        liveCa('ca_1', {
          pem: CORP_PEM,
          metadata: encodeMetadata(undefined, { owner: OWNER, name: 'corp' }),
        }),
      ],
      {
        complete: false,
      },
    );
    const desired = desiredState([entry('certificate_authorities', 'corp', { ca_pem: PARTNER_PEM })]);

    const cli = planChanges(desired, live, options);
    const daemon = planChanges(desired, live, { ...options, context: 'daemon' });

    expect(cli.refusal).toBeUndefined();
    expect(daemon.refusal?.code).toBe('incomplete-read');
  });
});

describe('schemas/plan.schema.json', () => {
  it('lists exactly the refusal codes of the safety policy', async () => {
    const { readFile } = await import('node:fs/promises');
    const { REFUSAL_CODES } = await import('../../src/plan/safety-policy.js');
    const schema = JSON.parse(
      await readFile(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'),
    );

    const codes = schema.properties.refusal.oneOf[1].properties.code.enum;

    expect([...codes].sort()).toEqual([...REFUSAL_CODES].sort());
  });
});
