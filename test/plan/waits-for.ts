import type { Plan } from '../../src/plan/plan.js';

/** Every action `key` waits for, directly or through others. */
export function waitsFor(plan: Plan, key: string): Set<string> {
  const byKey = new Map(plan.actions.map((action) => [action.key, action]));
  const seen = new Set<string>();
  const stack = [...(byKey.get(key)?.dependsOn ?? [])];
  while (stack.length > 0) {
    const next = stack.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(byKey.get(next)?.dependsOn ?? []));
  }
  return seen;
}
