import { createCountWords } from './follow-up-updates.js';
import type { PlanSummary } from './plan.js';

/**
 * `Plan: 3 to create, 1 to update, 0 to replace, 2 to delete.` plus the adopt
 * and module counts when non-zero (`2 module(s) to write`, `1 module(s) to
 * remove`), and `(1 then updated)` after the creates when `followUps` of
 * them are followed by an update. One wording for the text and the markdown
 * plan, so that a pull-request comment and a terminal say the same; the
 * apply's summary uses the same words in the past tense.
 */
export function planSummaryWords(summary: PlanSummary, followUps = 0): string {
  const parts = [
    createCountWords(summary.create, followUps, 'to create'),
    `${summary.update} to update`,
    `${summary.replace} to replace`,
    `${summary.delete} to delete`,
  ];
  if (summary.adopt > 0) parts.push(`${summary.adopt} to adopt`);
  if (summary['put-module'] > 0) parts.push(`${summary['put-module']} module(s) to write`);
  if (summary['delete-module'] > 0) parts.push(`${summary['delete-module']} module(s) to remove`);
  return `Plan: ${parts.join(', ')}.`;
}
