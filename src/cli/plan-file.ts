import { createReadStream } from 'node:fs';
import { EdgesyncError } from '../errors.js';
import type { Kind } from '../kinds/kind.js';
import type { Action } from '../plan/plan.js';
import type { SavedPlan } from '../plan/saved-plan.js';
import {
  SavedPlanActionsReader,
  type SavedPlanClaims,
  type SavedPlanHeader,
  SavedPlanHeaderReader,
  SavedPlanReader,
} from '../plan/saved-plan-reader.js';

/**
 * Reads and checks a file written by `plan --out`, for `show`. Read in
 * pieces: a plan of 100,000 changes is a 200 MB file.
 */
export async function readSavedPlanFile(path: string, kinds: readonly Kind[]): Promise<SavedPlan> {
  return (await readInPieces(path, new SavedPlanReader(kinds))).end();
}

/** Reads and checks a saved plan's header only (SavedPlanHeaderReader). */
export async function readSavedPlanHeader(path: string, kinds: readonly Kind[]): Promise<SavedPlanHeader> {
  return (await readInPieces(path, new SavedPlanHeaderReader(kinds))).end();
}

/** Reads a saved plan's actions one at a time into `onAction`, and its header (SavedPlanActionsReader). */
export async function readSavedPlanActions(
  path: string,
  kinds: readonly Kind[],
  onAction: (action: Action) => void,
): Promise<SavedPlanClaims> {
  return (await readInPieces(path, new SavedPlanActionsReader(kinds, onAction))).end();
}

async function readInPieces<R extends { push(text: string): void }>(path: string, reader: R): Promise<R> {
  try {
    for await (const piece of createReadStream(path, { encoding: 'utf8', highWaterMark: PIECE_BYTES }))
      reader.push(piece as string);
  } catch (cause) {
    if (cause instanceof EdgesyncError) throw cause;
    throw new EdgesyncError('plan_file_invalid', `cannot read the plan file ${path}`, { cause });
  }
  return reader;
}

const PIECE_BYTES = 1024 * 1024;
