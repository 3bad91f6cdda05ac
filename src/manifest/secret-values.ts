import type { Kind } from '../kinds/kind.js';
import { visitSpec } from '../kinds/visit-spec.js';
import type { DesiredEntry } from './desired-state.js';

/**
 * Calls `report` with the value of every secret field (FieldRule.sensitive)
 * the entries hold, as resolved from `{ env }`, `{ file }` or the literal.
 * Kinds without a secret field are skipped whole: a load of 100,000 rules
 * walks nothing.
 */
export function reportSecretValues(
  entries: readonly DesiredEntry[],
  kinds: readonly Kind[],
  report: (value: string) => void,
): void {
  const withSecrets = new Map(kinds.filter(hasSecretField).map((kind) => [kind.name as string, kind]));
  if (withSecrets.size === 0) return;
  for (const entry of entries) {
    const kind = withSecrets.get(entry.kind);
    if (kind === undefined) continue;
    visitSpec(kind, entry.spec, ({ rules, record }) => {
      if (record === undefined) return;
      for (const rule of rules) {
        const value = rule.sensitive === true ? record[rule.name] : undefined;
        if (typeof value === 'string') report(value);
      }
    });
  }
}

function hasSecretField(kind: Kind): boolean {
  return [kind.fields, ...kind.modules.map((module) => module.fields)].some((rules) =>
    rules.some((rule) => rule.sensitive === true),
  );
}
