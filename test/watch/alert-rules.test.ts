import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KINDS } from '../../src/kinds/registry.js';
import { WatchMetrics } from '../../src/watch/watch-metrics.js';

interface RuleFile {
  readonly groups: readonly {
    readonly rules: readonly { readonly alert: string; readonly expr: string }[];
  }[];
}

/** The metric names the daemon exports, with the series a histogram adds. */
async function exportedNames(): Promise<Set<string>> {
  const metrics = await new WatchMetrics(KINDS).registry.getMetricsAsJSON();
  return new Set(
    metrics.flatMap((metric) =>
      String(metric.type) === 'histogram'
        ? [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`]
        : [metric.name],
    ),
  );
}

describe('docs/operations.md alert rules', () => {
  it('parse as a Prometheus rule file and name only metrics the daemon exports', async () => {
    const doc = await readFile('docs/operations.md', 'utf8');
    const block = /```yaml\n(groups:\n[\s\S]*?)```/.exec(doc)?.[1];
    if (block === undefined) throw new Error('no rule file in docs/operations.md');
    const rules = (parse(block) as RuleFile).groups.flatMap((group) => group.rules);
    const named = new Set(rules.flatMap((rule) => rule.expr.match(/\bedgesync_[a-z_]+/g) ?? []));
    const exported = await exportedNames();

    expect(rules.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining(['EdgesyncReconcileLoopStuck', 'EdgesyncLiveCommitTooOld']),
    );
    expect(named.size).toBeGreaterThan(3);
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
  });
});
