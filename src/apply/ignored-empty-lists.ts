import { isRecord } from '../json-value.js';

/**
 * The fields a write set to an empty list that its answer still holds
 * items of: the service took `[]` as "not sent" (the family's clients leave
 * empty lists out, so a service may read one that way). edgesync cannot
 * clear such a field through the API, and sending the write again would
 * change nothing, so the action fails with these names instead of being
 * reported done and planned again forever. Read by shape only: the answer's
 * field of the same name, whatever the kind.
 */
export function ignoredEmptyLists(sent: unknown, answer: unknown): string[] {
  if (!isRecord(sent) || !isRecord(answer)) return [];
  const ignored: string[] = [];
  for (const [field, value] of Object.entries(sent)) {
    if (!Array.isArray(value) || value.length > 0) continue;
    const held = answer[field];
    if (Array.isArray(held) && held.length > 0) ignored.push(field);
  }
  return ignored;
}
