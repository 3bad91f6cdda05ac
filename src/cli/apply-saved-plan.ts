import { resolve } from 'node:path';
import type { ReadProgress } from '../apply/read-progress.js';
import { EdgesyncError } from '../errors.js';
import { KINDS } from '../kinds/registry.js';
import { type LoadOptions, loadDesiredState } from '../manifest/load-desired-state.js';
import type { ManifestError } from '../manifest/manifest-error.js';
import type { Plan } from '../plan/plan.js';
import { type SavedNarrowing, SavedPlanError } from '../plan/saved-plan.js';
import { type ContextChange, contextChangeLine, contextChanges } from '../plan/saved-plan-context.js';
import { SavedPlanJudge, type SavedPlanJudgement } from '../plan/saved-plan-judge.js';
import { combinedNarrowing } from '../plan/saved-plan-narrowing.js';
import { olderFormatReason, type SavedPlanHeader } from '../plan/saved-plan-reader.js';
import { manifestsRead, manifestsReadLines } from '../plan-session/manifests-read.js';
import { readAndPlan } from '../plan-session/prepare-plan.js';
import { visibleText } from '../visible-text.js';
import type { ApplyFlags } from './apply-flags.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { readSavedPlanActions, readSavedPlanHeader } from './plan-file.js';
import { readPlanKey } from './plan-key-file.js';
import { parsePlanOptions } from './plan-options.js';

/** The plan to apply for `apply --plan FILE`: the plan made now, once the saved plan confirms it. */
export type SavedPlanOutcome =
  | { readonly apply: Plan }
  | { readonly done: CommandOutcome }
  | { readonly manifestErrors: readonly ManifestError[] };

/**
 * `apply --plan FILE`: the file is a claim about what the manifests and the
 * account give, checked, never a script. The manifest paths, the owner and
 * the narrowing come from the command line (the file's narrowing can only
 * narrow it further); the file must say it was made from the same ones. The
 * plan is made again from the manifests and the account as they are now, and
 * each saved action is judged against it (SavedPlanJudge): what differs
 * stops everything (exit 3); what the account already holds is reported and
 * not sent; what remains is the plan made now, with its own safety verdict,
 * which is what is applied.
 */
export async function savedPlanToApply(
  file: string,
  paths: readonly string[],
  flags: ApplyFlags,
  reading: ReadProgress,
  ctx: CommandContext,
  load: LoadOptions,
): Promise<SavedPlanOutcome> {
  const options = parsePlanOptions(flags, KINDS);
  const path = resolve(ctx.cwd, file);
  const noPathGiven = paths.length === 0;
  const manifestPaths = noPathGiven ? ['.'] : paths;
  const key = await readPlanKey(flags.planKeyFile, ctx.cwd, (line) => ctx.stderr.write(`${line}\n`));
  // The header first: a file made from other manifests or for another owner is refused before anything is read.
  const header = await readSavedPlanHeader(path, options.kinds).catch((error: unknown) => {
    throw error instanceof SavedPlanError && error.olderFormat !== undefined
      ? stale(
          `${file}: saved by an older edgesync (format ${error.olderFormat}), ${olderFormatReason(error.olderFormat)}; nothing was sent: run \`edgesync plan --out\` again (with --plan-key-file) and review the new plan`,
        )
      : error;
  });
  checkMadeFrom(file, header, { owner: options.owner, manifestPaths, noPathGiven, cwd: ctx.cwd });
  const narrowing = combinedNarrowing(
    { targets: options.targets ?? [], excludes: options.excludes ?? [] },
    header.narrowing,
  );
  if (narrowing === undefined) {
    throw stale(
      `${file}: the plan was made for --target ${header.narrowing.targets.join(' ')}, and this command's --target selects none of it`,
    );
  }
  // `load` carries the heap growth limit the command set for the parsing workers (heap-growth.ts).
  const loaded = await loadDesiredState(manifestPaths, load);
  if (!loaded.ok) return { manifestErrors: loaded.errors };
  const read = manifestsRead(loaded.value, manifestPaths, noPathGiven);
  for (const line of manifestsReadLines(read, { always: true })) ctx.stderr.write(`${line}\n`);
  if (loaded.value.hash !== header.desiredHash) {
    throw stale(`${file}: the manifests changed since the plan was made; run \`edgesync plan\` again`);
  }
  reading.start();
  const { live, plan } = await readAndPlan(loaded.value, reading.api, {
    plan: { ...options, ...narrowing, context: 'saved-plan' },
    signal: ctx.shutdown,
  });
  reading.finish();
  const judge = new SavedPlanJudge(plan, live, { kinds: options.kinds, key });
  const claims = await readSavedPlanActions(path, options.kinds, (action) => judge.take(action));
  if (!sameHeader(claims, header)) throw stale(`${file}: the file changed while it was read`);
  const judgement = judge.finish(claims.fingerprints);
  if (plan.errors.length > 0) return { apply: plan };
  if (judgement.differences.length > 0) {
    for (const line of differenceLines(judgement)) ctx.stderr.write(`${line}\n`);
    for (const hint of judgement.keyHints) ctx.stderr.write(`secrets: ${hint}\n`);
    throw stale(
      judgement.keyHints.length > 0
        ? `${file}: ${judgement.differences.length} difference(s) (above), among them secrets the file holds no digest of under this apply's plan key; nothing was sent: give plan and apply the same --plan-key-file (EDGESYNC_PLAN_KEY_FILE), then plan again`
        : `${file}: ${judgement.differences.length} difference(s) from what the manifests and the account give now (above); nothing was sent: run \`edgesync plan\` again and review the new plan`,
    );
  }
  reportContext(file, contextChanges(claims.context, live, options.kinds, options.owner), flags, ctx);
  reportJudgement(file, judgement, plan, ctx);
  if (plan.refusal !== undefined || plan.actions.length > 0) return { apply: plan };
  if (judgement.alreadyApplied.length > 0) {
    const said = `Already applied: the account already holds every change of ${file}; nothing was sent.`;
    if (ctx.jsonUi === undefined) ctx.stdout.write(`${said}\n`);
    else ctx.jsonUi.summarize(said, { outcome: 'already_applied' });
    return { done: 'ok' };
  }
  return { apply: plan };
}

function stale(message: string): EdgesyncError {
  return new EdgesyncError('plan_stale', message);
}

/** Refuses a file that says it was made from other manifests or for another owner than this command's. */
function checkMadeFrom(
  file: string,
  header: SavedPlanHeader,
  command: {
    readonly owner: string;
    readonly manifestPaths: readonly string[];
    readonly noPathGiven: boolean;
    readonly cwd: string;
  },
): void {
  const resolved = (paths: readonly string[]): string =>
    JSON.stringify([...new Set(paths.map((path) => resolve(command.cwd, path)))].sort());
  const samePaths = resolved(header.manifestPaths) === resolved(command.manifestPaths);
  if (samePaths && header.owner === command.owner) return;
  const given = command.noPathGiven ? '. (no path given)' : command.manifestPaths.join(' ');
  throw stale(
    `${file}: the plan was made from ${header.manifestPaths.join(' ')} for owner "${header.owner}", and this command names ${given} for owner "${command.owner}"; apply it with the paths and --owner it was made with: edgesync apply --plan ${file} --owner ${header.owner} ${header.manifestPaths.join(' ')}`,
  );
}

function sameHeader(a: SavedPlanHeader, b: SavedPlanHeader): boolean {
  const narrowing = (value: SavedNarrowing): string => JSON.stringify([value.targets, value.excludes]);
  return (
    a.owner === b.owner &&
    a.desiredHash === b.desiredHash &&
    JSON.stringify(a.manifestPaths) === JSON.stringify(b.manifestPaths) &&
    narrowing(a.narrowing) === narrowing(b.narrowing)
  );
}

/** A file of 100,000 tampered actions gives a readable message, not 100,000 lines. */
const MAX_DIFFERENCES_SHOWN = 20;

/** One line per difference, each its own on stderr, then how many more. */
function differenceLines(judgement: SavedPlanJudgement): string[] {
  const shown = judgement.differences.slice(0, MAX_DIFFERENCES_SHOWN);
  const more = judgement.differences.length - shown.length;
  return [
    ...shown.map((line) => `differs: ${visibleText(line)}`),
    ...(more > 0 ? [`differs: … and ${more} more`] : []),
  ];
}

/**
 * The objects around the plan that changed since it was made: each on its
 * own `context:` line, as a warning, or (`--refuse-context-changes`) as the
 * reason nothing is sent (exit 3). The plan made now is what it was; what
 * changed is what the reviewer saw beside it.
 */
function reportContext(
  file: string,
  changes: readonly ContextChange[],
  flags: ApplyFlags,
  ctx: CommandContext,
): void {
  if (changes.length === 0) return;
  const shown = changes.slice(0, MAX_DIFFERENCES_SHOWN);
  for (const change of shown) ctx.stderr.write(`context: ${visibleText(contextChangeLine(change))}\n`);
  if (changes.length > shown.length)
    ctx.stderr.write(`context: … and ${changes.length - shown.length} more\n`);
  const what = `${changes.length} object(s) edgesync does not manage changed since the plan was made, in what the plan writes to (above)`;
  if (flags.refuseContextChanges === true) {
    throw stale(
      `${file}: ${what}; nothing was sent (--refuse-context-changes): review them, then run \`edgesync plan\` again`,
    );
  }
  ctx.stderr.write(
    `warning: ${file}: ${what}; applying, since the plan's own actions are unchanged (--refuse-context-changes refuses instead)\n`,
  );
}

function reportJudgement(file: string, judgement: SavedPlanJudgement, plan: Plan, ctx: CommandContext): void {
  const applied = judgement.alreadyApplied;
  if (applied.length === 0) return;
  const keys = applied.slice(0, MAX_DIFFERENCES_SHOWN).join(', ');
  const more =
    applied.length > MAX_DIFFERENCES_SHOWN ? ` and ${applied.length - MAX_DIFFERENCES_SHOWN} more` : '';
  const rest =
    plan.actions.length === 0 ? '' : `; the other ${plan.actions.length} are confirmed by planning again`;
  ctx.stderr.write(
    `${file}: ${applied.length} action(s) already applied (the account already holds what they write; nothing is sent for them): ${visibleText(keys)}${more}${rest}\n`,
  );
}
