import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { renderRequests, requestsChunks } from '../../src/apply/render-requests.js';
import { writePieces } from '../../src/cli/write-pieces.js';
import { KINDS } from '../../src/kinds/registry.js';
import type { Plan } from '../../src/plan/plan.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { planJsonChunks, planToJson, renderPlanJson } from '../../src/plan/render-json.js';
import { renderPlanMarkdown } from '../../src/plan/render-markdown.js';
import { planTextChunks } from '../../src/plan/render-text.js';
import { savedPlanChunks, serializeSavedPlan, toSavedPlan } from '../../src/plan/saved-plan.js';
import { visibleJson } from '../../src/visible-text.js';
import { desiredState, entry, liveState, OWNER, POLICY } from './builders.js';
import { samplePlan } from './sample-plan.js';

/** Many creates, names and descriptions holding what must be escaped (a bidi override, C1, a newline). */
function largePlan(count: number): Plan {
  const entries = Array.from({ length: count }, (_, index) =>
    entry('ip_policy_rules', `rule-${index}`, {
      cidr: `10.${index >> 8}.${index & 255}.0/24`,
      action: index % 2 === 0 ? 'allow' : 'deny',
      ip_policy_id: POLICY,
      description: `rule ${index} \u202e\u0085\n`,
    }),
  );
  return planChanges(desiredState(entries), liveState([]), { kinds: KINDS, owner: OWNER });
}

const plans: [string, () => Plan][] = [
  ['every kind of change, with a secret', samplePlan],
  ['300 creates with escaped text', () => largePlan(300)],
  ['nothing to do', () => planChanges(desiredState([]), liveState([]), { kinds: KINDS, owner: OWNER })],
];

describe('plans written in pieces', () => {
  it.each(plans)('JSON: the same text as the whole-plan renderer (%s)', (_, make) => {
    const plan = make();
    const stats = { requests: 3, pages: 2, durationMs: 41 };
    const extra = { manifests_read: { directories: ['manifests'] } };
    expect([...planJsonChunks(plan, { stats })].join('')).toBe(renderPlanJson(plan, { stats }));
    expect([...planJsonChunks(plan, { stats }, extra)].join('')).toBe(
      `${visibleJson({ ...planToJson(plan, { stats }), ...extra }, 2)}\n`,
    );
  });

  it.each(plans)('saved plan: the same file as the whole-plan serializer (%s)', (_, make) => {
    const saved = toSavedPlan(make(), ['manifests']);
    expect([...savedPlanChunks(saved)].join('')).toBe(serializeSavedPlan(saved));
  });

  it.each(plans)('dry-run requests: the same text as the whole-plan renderer (%s)', (_, make) => {
    const plan = make();
    expect([...requestsChunks(plan)].join('')).toBe(renderRequests(plan));
  });

  it('text and JSON are made one change at a time, in whole lines', () => {
    const plan = largePlan(300);
    const text = [...planTextChunks(plan)];
    expect(text.length).toBeGreaterThanOrEqual(plan.changes.length);
    for (const chunk of text) expect(chunk.endsWith('\n')).toBe(true);
    expect(Math.max(...text.map((chunk) => chunk.length))).toBeLessThan(1000);
    const json = [...planJsonChunks(plan)];
    expect(Math.max(...json.map((chunk) => chunk.length))).toBeLessThan(2000);
  });

  it('markdown names manifests through fileName, once per file, as a plan with renamed sources would', () => {
    const plan = largePlan(40);
    const asked: string[] = [];
    const renamed = renderPlanMarkdown(plan, {
      fileName: (file) => {
        asked.push(file);
        return `repo/${file}`;
      },
    });
    const moved: Plan = {
      ...plan,
      changes: plan.changes.map((change) =>
        change.source
          ? { ...change, source: { ...change.source, file: `repo/${change.source.file}` } }
          : change,
      ),
    };
    expect(renamed).toBe(renderPlanMarkdown(moved));
    expect(renamed).toContain('repo/');
    expect(asked).toEqual([...new Set(asked)]);
  });
});

describe('writePieces', () => {
  it('writes every piece in order, in batches, and waits while the stream is full', async () => {
    const writes: string[] = [];
    let waits = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, callback) {
        writes.push(chunk.toString());
        setImmediate(callback);
      },
    });
    slow.on('drain', () => {
      waits += 1;
    });
    const pieces = Array.from({ length: 5000 }, (_, index) => `line ${index}\n`);
    await writePieces(slow, pieces);
    expect(writes.join('')).toBe(pieces.join(''));
    expect(writes.length).toBeLessThan(pieces.length / 10);
    expect(waits).toBeGreaterThan(0);
  });

  it('rejects when the stream fails (a reader that went away), instead of waiting for ever', async () => {
    const broken = new Writable({
      highWaterMark: 16,
      write(_chunk, _encoding, callback) {
        setImmediate(() => callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })));
      },
    });
    broken.on('error', () => {});
    const pieces = Array.from({ length: 100_000 }, () => 'x'.repeat(10));
    await expect(writePieces(broken, pieces)).rejects.toThrow('EPIPE');
  });

  it('rejects at once on a stream that already failed between writes', async () => {
    const failed = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    failed.on('error', () => {});
    failed.write('first');
    await new Promise((resolve) => setImmediate(resolve));
    await expect(writePieces(failed, ['x'.repeat(70_000), 'y'])).rejects.toThrow('EPIPE');
  });
});
