import { readFile } from 'node:fs/promises';
import { EdgesyncError } from '../errors.js';
import { parseSavedPlan, type SavedPlan } from '../plan/saved-plan.js';

/** Reads and checks a file written by `plan --out`; `apply --plan` and `show` both start here. */
export async function readSavedPlanFile(path: string): Promise<SavedPlan> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new EdgesyncError('plan_file_invalid', `cannot read the plan file ${path}`, { cause });
  }
  return parseSavedPlan(text);
}
