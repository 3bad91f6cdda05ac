import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { renderPlanJson } from '../../src/plan/render-json.js';
import { renderPlanMarkdown } from '../../src/plan/render-markdown.js';
import { renderPlanText } from '../../src/plan/render-text.js';
import {
  CORP_PEM,
  desiredState,
  entry,
  liveCa,
  liveRule,
  liveState,
  marked,
  OWNER,
  PARTNER_PEM,
  POLICY,
} from './builders.js';
import { SECRET, samplePlan } from './sample-plan.js';

describe('renderPlanText', () => {
  it('shows one block per change with symbols, field diffs, summarized PEMs and (sensitive)', () => {
    const text = renderPlanText(samplePlan());

    expect(text).toContain('  ~ ip_policy_rules.office (ipr_1) {');
    expect(text).toContain('~ description = "old" -> "vpn"');
    expect(text).toContain('-/+ certificate_authorities.corp (ca_1) {');
    expect(text).toMatch(
      /ca_pem = "<PEM, CN=[^"]+, 1 certificate>" -> "<PEM, CN=[^"]+, 1 certificate>" # forces replacement/,
    );
    expect(text).toContain('  - ip_policy_rules.gone (ipr_gone) {');
    expect(text).toMatch(/\+ oidc\.client_secret\s+= \(sensitive\)/);
    expect(text).toContain('(known after apply: certificate_authorities.corp)');
    expect(text).toContain(
      'Plan: 0 to create, 1 to update, 1 to replace, 1 to delete, 2 module(s) to write.',
    );
    expect(text).toContain('1 unmanaged object(s) left alone.');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('BEGIN CERTIFICATE');
    expect(text).not.toContain('\u001b[');
  });

  it('colours only when asked', () => {
    expect(renderPlanText(samplePlan(), { color: true })).toContain('\u001b[32m');
  });

  it('says there is nothing to do for an empty plan', () => {
    const plan = planChanges(desiredState([]), liveState([]), { kinds: KINDS, owner: OWNER });

    expect(renderPlanText(plan)).toContain('No changes. The account matches the manifests.');
  });

  it('shows errors with their location and the refusal', () => {
    const desired = desiredState([
      entry('certificate_authorities', 'corp', { ca_pem: PARTNER_PEM }, { protect: true }),
      entry(
        'ip_policy_rules',
        'x',
        { cidr: '10.0.0.0/8', action: 'deny', ip_policy_id: POLICY },
        { id: 'ipr_missing' },
      ),
    ]);
    const live = liveState([liveCa('ca_1', { pem: CORP_PEM, metadata: marked('corp') })]);

    const text = renderPlanText(planChanges(desired, live, { kinds: KINDS, owner: OWNER }));

    expect(text).toMatch(
      /Error: manifests\/main\.yaml:\d+:3: ip_policy_rules\.x: id ipr_missing does not exist/,
    );
    expect(text).toContain('Refused (protected):');
  });
});

describe('renderPlanJson', () => {
  const schema = JSON.parse(readFileSync(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'));
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

  it('is valid against schemas/plan.schema.json and masks secrets', () => {
    const json = renderPlanJson(samplePlan(), { stats: { requests: 7, pages: 5, durationMs: 12 } });
    const parsed = JSON.parse(json);

    expect(validate(parsed), JSON.stringify(validate.errors)).toBe(true);
    expect(parsed.format_version).toBe(2);
    expect(parsed.summary).toMatchObject({ put_module: 2, delete_module: 0 });
    expect(parsed.stats).toEqual({ requests: 7, pages: 5, duration_ms: 12 });
    expect(json).not.toContain(SECRET);
    expect(json).toContain('"(sensitive)"');
  });

  it('rejects output that drifts from the schema', () => {
    const parsed = JSON.parse(renderPlanJson(samplePlan()));
    parsed.summary.surprise = 1;

    expect(validate(parsed)).toBe(false);
  });

  it('is valid with errors, warnings and a refusal', () => {
    const live = liveState(
      [liveRule('ipr_1', { cidr: '10.0.0.0/8', action: 'deny', metadata: marked('a') })],
      {
        complete: false,
      },
    );
    const parsed = JSON.parse(
      renderPlanJson(planChanges(desiredState([]), live, { kinds: KINDS, owner: OWNER })),
    );

    expect(validate(parsed), JSON.stringify(validate.errors)).toBe(true);
    expect(parsed.refusal.code).toBe('empty-desired');
    expect(parsed.warnings[0].code).toBe('live_state_incomplete');
  });
});

describe('the plan summary line', () => {
  it('is the same words in the text plan and the markdown comment', () => {
    const plan = samplePlan();

    const textLine = renderPlanText(plan, { color: false })
      .split('\n')
      .find((line) => line.startsWith('Plan: '));

    expect(textLine).toMatch(/module\(s\) to write/);
    expect(renderPlanMarkdown(plan)).toContain(`**${textLine}**`);
  });
});

describe('renderPlanMarkdown', () => {
  it('has the summary, a table in reviewer words, a diff and no secrets', () => {
    const markdown = renderPlanMarkdown(samplePlan());

    expect(markdown).toContain('| | Address | Action | Reason | Manifest |');
    expect(markdown).toContain('| 🟡 | `ip_policy_rules.office` | update | description changed |');
    expect(markdown).toContain('| write module |');
    expect(markdown).not.toContain('put-module');
    expect(markdown).toContain('module(s) to write');
    expect(markdown).toContain('```diff');
    expect(markdown).toContain('(sensitive)');
    expect(markdown).not.toContain(SECRET);
  });
});
