import { pointerToken, replaceAt } from '../json-pointer.js';
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

/** Stands for a secret's value in what is hashed of the desired state. */
const SECRET_STAND_IN = '(sensitive)';

/**
 * `spec` with the value of every secret field replaced by a stand-in, for
 * the desired state's hash: that hash reaches saved plans, `plan --format
 * json` and the daemon's `/status`, and a plain digest over manifests a
 * reader has, plus one secret, lets them test guesses at the secret
 * offline. The same object when no secret field is set.
 */
export function withoutSecretValues(kind: Kind, spec: Readonly<Record<string, unknown>>): unknown {
  let masked: unknown = spec;
  visitSpec(kind, spec, ({ rules, record, pointer }) => {
    if (record === undefined) return;
    for (const rule of rules) {
      if (rule.sensitive === true && typeof record[rule.name] === 'string')
        masked = replaceAt(masked, `${pointer}/${pointerToken(rule.name)}`, SECRET_STAND_IN);
    }
  });
  return masked;
}

/** Whether any field of the kind or its modules is a secret (FieldRule.sensitive). */
export function hasSecretField(kind: Kind): boolean {
  return [kind.fields, ...kind.modules.map((module) => module.fields)].some((rules) =>
    rules.some((rule) => rule.sensitive === true),
  );
}
