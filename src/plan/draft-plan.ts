import { DraftBook, type Drafts } from './drafts.js';
import { checkAdoptions, LiveMatcher } from './match-live.js';
import { planEntry } from './plan-entry.js';
import type { KindRules, PlanInputs } from './plan-inputs.js';
import { planPrunes } from './plan-prunes.js';
import { kindsInReferenceOrder } from './resolve-references.js';
import { checkUniqueItems } from './unique-items.js';
import { checkUniqueKeys, matchUniqueKeys } from './unique-keys.js';

/**
 * The planner's second phase, after the inputs: every change and action the
 * plan needs, from the inputs alone. Conflicts between entries are found
 * first; then each entry is drafted (planEntry), referenced kinds first so
 * that names resolve to IDs already planned; then the prunes, then the items
 * of unique list fields. The planners return what they drafted and only
 * this function writes it into the book. Problems become errors and drafting
 * goes on, so that a person sees every problem at once.
 */
export function draftPlan(inputs: PlanInputs): Drafts {
  const sharedKeys = checkUniqueKeys(inputs);
  const keyMatches = matchUniqueKeys(inputs, sharedKeys.sharingKey);
  const adoptions = checkAdoptions(inputs);
  const matcher = new LiveMatcher(inputs, keyMatches.keyMatched);
  const book = new DraftBook(inputs, [...adoptions.errors, ...sharedKeys.errors, ...keyMatches.errors]);
  for (const kind of kindsInReferenceOrder([...inputs.kindsByName.values()])) {
    const rules = inputs.rules.get(kind) as KindRules;
    // By position: an entry's normalized spec is at the same place of `specs`.
    let at = -1;
    for (const entry of inputs.desired.entries) {
      at += 1;
      if (entry.kind !== kind.name || adoptions.skipped.has(entry)) continue;
      const spec = inputs.specs[at] ?? entry.spec;
      book.add(planEntry(book, matcher, rules, entry, spec, inputs.keys.entries[at]));
    }
  }
  book.add(planPrunes(inputs, book.claims));
  const items = checkUniqueItems(inputs, book.claims, book.actions);
  book.errors.push(...items.errors);
  return { ...book.drafts(), takeovers: items.takeovers };
}
