import { describe, expect, it } from 'vitest';
import { readImports, type SourceImport } from './source-imports.js';

/** The key builders: each entry's comparable form and unique key (docs/architecture.md, the planner's phases). */
const KEY_BUILDERS = 'plan/entry-keys.ts';
/** The one phase that uses them. */
const FIRST_PHASE = 'plan/plan-inputs.ts';
const CANONICAL_JSON = 'canonical-json.ts';

/** The modules that import `target`, type imports included. */
function importersOf(imports: readonly SourceImport[], target: string): string[] {
  return [...new Set(imports.filter((edge) => edge.to === target).map((edge) => edge.from))].sort();
}

/** The modules `root` reaches through its imports, type imports included. */
function reachedFrom(imports: readonly SourceImport[], root: string): Set<string> {
  const reached = new Set([root]);
  const pending = [root];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const edge of imports) {
      if (edge.from !== next || reached.has(edge.to)) continue;
      reached.add(edge.to);
      pending.push(edge.to);
    }
  }
  return reached;
}

/** The planner's own modules that print canonical JSON among those `planChanges` reaches: none compares by printing. */
function plannerModulesPrinting(imports: readonly SourceImport[]): string[] {
  const reached = reachedFrom(imports, 'plan/plan-changes.ts');
  return importersOf(imports, CANONICAL_JSON).filter(
    (module) => module.startsWith('plan/') && reached.has(module),
  );
}

describe('the planner works out each key once', () => {
  const imports = readImports();

  it('only the first phase imports the key builders', () => {
    expect(importersOf(imports, KEY_BUILDERS)).toEqual([FIRST_PHASE]);
  });

  it('no phase prints canonical JSON to compare or key a value', () => {
    expect(plannerModulesPrinting(imports)).toEqual([]);
  });

  it('catches a later phase that imports the key builders or prints canonical JSON', () => {
    const phases: SourceImport[] = [
      { from: 'plan/plan-changes.ts', to: 'plan/plan-inputs.ts', typeOnly: false },
      { from: 'plan/plan-changes.ts', to: 'plan/ordering/ordering-facts.ts', typeOnly: false },
      { from: 'plan/plan-inputs.ts', to: KEY_BUILDERS, typeOnly: false },
    ];
    const recomputing: SourceImport[] = [
      ...phases,
      { from: 'plan/ordering/ordering-facts.ts', to: KEY_BUILDERS, typeOnly: true },
      { from: 'plan/ordering/ordering-facts.ts', to: CANONICAL_JSON, typeOnly: false },
    ];

    expect(importersOf(phases, KEY_BUILDERS)).toEqual([FIRST_PHASE]);
    expect(plannerModulesPrinting(phases)).toEqual([]);
    expect(importersOf(recomputing, KEY_BUILDERS)).toEqual(['plan/ordering/ordering-facts.ts', FIRST_PHASE]);
    expect(plannerModulesPrinting(recomputing)).toEqual(['plan/ordering/ordering-facts.ts']);
  });
});
