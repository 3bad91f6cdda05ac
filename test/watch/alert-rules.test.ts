import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KINDS } from '../../src/kinds/registry.js';
import { WatchMetrics } from '../../src/watch/watch-metrics.js';

const ROOT = join(import.meta.dirname, '..', '..');
const RULES_FILE = join(ROOT, 'deploy', 'prometheus', 'edgesync-rules.yaml');

interface RuleFile {
  readonly groups: readonly {
    readonly rules: readonly { readonly alert: string; readonly expr: string }[];
  }[];
}

/** The metric names the daemon exports, with the series a histogram adds. */
async function exportedNames(): Promise<Set<string>> {
  const daemon = new WatchMetrics(KINDS);
  daemon.registerDaemonGauges({
    loopIsStuck: () => false,
    cacheAgeSeconds: () => null,
    suspended: () => false,
  });
  const metrics = await daemon.registry.getMetricsAsJSON();
  return new Set(
    metrics.flatMap((metric) =>
      String(metric.type) === 'histogram'
        ? [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`]
        : [metric.name],
    ),
  );
}

/** promtool's own checks of this file and of a live scrape: test/reliability/alert-rules-promtool.test.ts. */
describe('deploy/prometheus/edgesync-rules.yaml', () => {
  it('parses as a Prometheus rule file and names only metrics the daemon exports', async () => {
    const rules = (parse(await readFile(RULES_FILE, 'utf8')) as RuleFile).groups.flatMap(
      (group) => group.rules,
    );
    const named = new Set(rules.flatMap((rule) => rule.expr.match(/\bedgesync_[a-z_]+/g) ?? []));
    const exported = await exportedNames();

    expect(rules.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining(['EdgesyncReconcileLoopStuck', 'EdgesyncLiveCommitTooOld']),
    );
    expect(named.size).toBeGreaterThan(3);
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('is the file docs/operations.md points at, which lists every alert and holds no rule block of its own', async () => {
    const doc = await readFile(join(ROOT, 'docs', 'operations.md'), 'utf8');
    const alerts = (parse(await readFile(RULES_FILE, 'utf8')) as RuleFile).groups.flatMap((group) =>
      group.rules.map((rule) => rule.alert),
    );

    expect(doc).toContain('deploy/prometheus/edgesync-rules.yaml');
    expect(doc).not.toMatch(/```yaml\ngroups:/);
    expect(alerts.filter((alert) => !doc.includes(`| \`${alert}\``))).toEqual([]);
  });
});
