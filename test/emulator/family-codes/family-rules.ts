import { API_WIDE_RULES } from '../../../src/emulator/api-errors.js';
import type { EmulatorPart } from '../../../src/emulator/emulated-collection.js';
import type { FamilyRule } from '../../../src/emulator/family-rule.js';
import { KINDS } from '../../../src/kinds/registry.js';

function withRequired(parts: readonly EmulatorPart[]): EmulatorPart[] {
  const all: EmulatorPart[] = [];
  const visit = (part: EmulatorPart): void => {
    if (all.includes(part)) return;
    all.push(part);
    for (const required of part.requires ?? []) visit(required);
  };
  for (const part of parts) visit(part);
  return all;
}

let rules: Promise<readonly FamilyRule[]> | undefined;

/** Every family rule the built-in emulator applies: the request pipeline's and each kind part's, once each. */
export function familyRules(): Promise<readonly FamilyRule[]> {
  rules ??= (async () => {
    const parts = await Promise.all(KINDS.flatMap((kind) => (kind.emulator ? [kind.emulator()] : [])));
    const found = new Set<FamilyRule>(API_WIDE_RULES);
    for (const part of withRequired(parts)) for (const rule of part.errors ?? []) found.add(rule);
    return [...found];
  })();
  return rules;
}
