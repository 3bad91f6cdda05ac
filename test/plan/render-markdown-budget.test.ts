import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import type { ResourceChange } from '../../src/plan/plan.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import {
  DEFAULT_MARKDOWN_MAX_CHARS,
  GITHUB_COMMENT_MAX_CHARS,
  MIN_MARKDOWN_MAX_CHARS,
  renderPlanMarkdown,
} from '../../src/plan/render-markdown.js';
import { propertyRuns } from '../support/property-runs.js';
import { desiredState, entry, liveRule, liveState, marked, OWNER, POLICY } from './builders.js';

/** `creates` new rules and `deletes` owned rules no longer in the manifests, each with a long description. */
function bigPlan(creates: number, deletes: number, described = 'x'.repeat(120)) {
  const desired = desiredState(
    Array.from({ length: creates }, (_, index) =>
      entry('ip_policy_rules', `rule-${String(index).padStart(4, '0')}`, {
        cidr: `10.${Math.floor(index / 256)}.${index % 256}.0/24`,
        action: 'allow',
        ip_policy_id: POLICY,
        description: `${described} ${index}`,
      }),
    ),
  );
  const live = liveState(
    Array.from({ length: deletes }, (_, index) =>
      liveRule(`ipr_gone${index}`, {
        cidr: `172.16.${index}.0/24`,
        action: 'deny',
        metadata: marked(`gone-${index}`),
      }),
    ),
  );
  return planChanges(desired, live, { kinds: KINDS, owner: OWNER, force: true });
}

/** Every fenced block is closed and every `<details>` ends. */
function balanced(markdown: string): boolean {
  const fences = markdown.split('\n').filter((line) => /^`{3,}/.test(line));
  const opened = (markdown.match(/<details>/g) ?? []).length;
  const closed = (markdown.match(/<\/details>/g) ?? []).length;
  return fences.length % 2 === 0 && opened === closed;
}

/** Lines of the diff blocks, without the fences. */
function diffBodies(markdown: string): string[] {
  const lines: string[] = [];
  let inside = false;
  for (const line of markdown.split('\n')) {
    if (/^`{3,}diff$/.test(line)) inside = true;
    else if (/^`{3,}$/.test(line)) inside = false;
    else if (inside) lines.push(line);
  }
  return lines;
}

describe('plan --format markdown within a size budget', () => {
  it('fits 300 creates + 5 deletes in a GitHub comment, every delete shown first', () => {
    const plan = bigPlan(300, 5);
    const unbounded = renderPlanMarkdown(plan, { maxChars: Number.MAX_SAFE_INTEGER });

    const markdown = renderPlanMarkdown(plan, { fullPlanCommand: 'edgesync show plan.json' });

    expect(unbounded.length).toBeGreaterThan(GITHUB_COMMENT_MAX_CHARS);
    expect(markdown.length).toBeLessThanOrEqual(DEFAULT_MARKDOWN_MAX_CHARS);
    expect(markdown).toContain('**Plan: 300 to create, 0 to update, 0 to replace, 5 to delete.**');
    const firstCreate = markdown.indexOf('ip_policy_rules.rule-0000');
    for (let index = 0; index < 5; index += 1) {
      const row = markdown.indexOf(`| 🔴 | \`ip_policy_rules.gone-${index}\` | delete |`);
      expect(row).toBeGreaterThan(0);
      expect(row).toBeLessThan(firstCreate);
      expect(markdown).toContain(`- ip_policy_rules.gone-${index} (ipr_gone${index}) {`);
    }
    expect(markdown).toContain('<details><summary>Other changes (300)</summary>');
    expect(markdown).toMatch(
      /_Not shown to stay under 60,000 characters: \d+ change details \([\d,]+ characters\); run `edgesync show plan.json` for the whole plan\._/,
    );
    expect(balanced(markdown)).toBe(true);
  });

  it('writes "N unchanged" once, and + and - in column 0 of the diff', () => {
    const markdown = renderPlanMarkdown(bigPlan(3, 2));

    expect(markdown.match(/unchanged/g)).toHaveLength(1);
    const body = diffBodies(markdown);
    expect(body.filter((line) => line.startsWith('+')).length).toBeGreaterThan(0);
    expect(body.filter((line) => line.startsWith('-')).length).toBeGreaterThan(0);
    expect(body.every((line) => /^[-+# ]/.test(line))).toBe(true);
    expect(body.filter((line) => /^\s+[-+]/.test(line))).toEqual([]);
  });

  it('shows an update as the old line and the new line', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'office', {
        cidr: '10.0.0.0/24',
        action: 'allow',
        ip_policy_id: POLICY,
        description: 'new',
      }),
    ]);
    const live = liveState([
      liveRule('ipr_1', {
        cidr: '10.0.0.0/24',
        action: 'allow',
        metadata: marked('office'),
        description: 'old',
      }),
    ]);

    const body = diffBodies(renderPlanMarkdown(planChanges(desired, live, { kinds: KINDS, owner: OWNER })));

    expect(body).toContain('-     description = "old"');
    expect(body).toContain('+     description = "new"');
  });

  it('keeps a refusal and every delete even under the smallest budget', () => {
    const plan = bigPlan(50, 5);
    const refused = { ...plan, refusal: { code: 'max-destroy' as const, message: '5 deletes exceed 1' } };

    const markdown = renderPlanMarkdown(refused, { maxChars: 2_500 });

    expect(markdown.length).toBeLessThanOrEqual(2_500);
    expect(markdown).toContain('⛔ **Refused (max-destroy)**: 5 deletes exceed 1');
    for (let index = 0; index < 5; index += 1) expect(markdown).toContain(`ip_policy_rules.gone-${index}`);
    expect(markdown).toContain('_Not shown to stay under 2,500 characters:');
    expect(balanced(markdown)).toBe(true);
  });

  it('stays within any budget, balanced, with a fence no value can close', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 120 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: MIN_MARKDOWN_MAX_CHARS, max: 30_000 }),
        fc.string({ maxLength: 40 }),
        (creates, deletes, maxChars, described) => {
          const markdown = renderPlanMarkdown(bigPlan(creates, deletes, `\`\`\`${described}`), { maxChars });

          const changes: readonly ResourceChange[] = bigPlan(creates, deletes).changes;
          expect(markdown.length).toBeLessThanOrEqual(maxChars);
          expect(balanced(markdown)).toBe(true);
          if (changes.length > 0 && !markdown.includes('Not shown')) {
            for (const change of changes) expect(markdown).toContain(change.address);
          }
        },
      ),
      { numRuns: propertyRuns({ small: 10, large: 40 }), seed: 16 },
    );
  });
});
