import { createInterface } from 'node:readline/promises';
import type { Logger } from 'pino';
import { type ApplyResult, applySucceeded } from '../apply/apply-result.js';
import { executePlan } from '../apply/execute-plan.js';
import { applySummaryJson, progressEventJson } from '../apply/progress-json.js';
import {
  createProgressReporter,
  formatApplySummary,
  formatFinishHint,
  formatUnappliedActions,
} from '../apply/progress-reporter.js';
import { createReadProgress, type ReadProgress } from '../apply/read-progress.js';
import { requestsChunks } from '../apply/render-requests.js';
import { EdgesyncError, OptionError } from '../errors.js';
import { KINDS, kindByName } from '../kinds/registry.js';
import type { LoadOptions } from '../manifest/load-desired-state.js';
import type { ManifestError } from '../manifest/manifest-error.js';
import { formatLocation } from '../manifest/source-location.js';
import type { Plan } from '../plan/plan.js';
import { planTextChunks } from '../plan/render-text.js';
import { manifestsRead, manifestsReadLines } from '../plan-session/manifests-read.js';
import { preparePlan } from '../plan-session/prepare-plan.js';
import { visibleText } from '../visible-text.js';
import type { ApplyFlags } from './apply-flags.js';
import {
  writeEvent,
  writeManifestDiagnostics,
  writePlanDiagnostics,
  writePlannedChanges,
  writePlannedRequests,
} from './apply-json-output.js';
import { savedPlanToApply } from './apply-saved-plan.js';
import { builtInLoad } from './built-in-registry.js';
import { useColor } from './color-choice.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { type Connection, openConnection } from './connection.js';
import { parseDuration, parsePositiveInteger } from './duration-option.js';
import { limitHeapGrowth } from './heap-growth.js';
import { wantsDetail } from './log-level.js';
import { loggerFor } from './logger.js';
import { manifestErrorLines } from './manifest-error-lines.js';
import { parseOwner, parsePlanOptions } from './plan-options.js';
import { refuseWhenDaemonEnforces } from './status-enforce-guard.js';
import { statusTokenHeader } from './status-token-header.js';
import { TerminalRow, writingAboveRow } from './terminal-row.js';
import { writePieces } from './write-pieces.js';

const CONFIRMATION = "Apply these changes? Only 'yes' will be accepted: ";

export async function runApply(
  paths: readonly string[],
  flags: ApplyFlags,
  commandCtx: CommandContext,
): Promise<CommandOutcome> {
  const startedAt = performance.now();
  const concurrency = parsePositiveInteger('--concurrency', flags.concurrency);
  const graceMs = parseDuration('--grace-timeout', flags.graceTimeout);
  if (commandCtx.jsonUi !== undefined && flags.yes !== true && flags.plan === undefined) {
    throw new OptionError(
      '--format',
      'json cannot ask for confirmation: pass --yes, or --plan FILE to apply a plan reviewed when it was saved',
    );
  }
  limitHeapGrowth();
  // On a terminal, progress is a row rewritten in place; every other line on stderr (logs included) goes above it.
  const row = commandCtx.stderr.isTTY === true ? new TerminalRow(commandCtx.stderr) : undefined;
  const ctx = row === undefined ? commandCtx : writingAboveRow(commandCtx, row);
  const logger = loggerFor(flags, ctx.stderr);
  if (flags.daemonUrl !== undefined) {
    await refuseWhenDaemonEnforces(
      flags.daemonUrl,
      parseOwner(flags.owner),
      {
        signal: ctx.shutdown,
        timeoutMs: parseDuration('--timeout', flags.timeout),
        auth: await statusTokenHeader(flags.statusTokenFile, ctx),
      },
      (line) => ctx.stderr.write(`${line}\n`),
    );
  }
  const connection = await openConnection(flags, { logger });
  const readLines = humanLines(flags, ctx);
  const reading = createReadProgress(connection.api, {
    logger,
    budget: connection.budget,
    ...(row === undefined ? {} : { row }),
    ...(readLines === undefined ? {} : { lines: readLines }),
  });
  try {
    const plan =
      flags.plan === undefined
        ? await planFromManifests(paths, flags, connection, reading, ctx)
        : await planFromFile(flags.plan, paths, flags, connection, reading, ctx);
    if (typeof plan === 'string') return plan;
    return await confirmAndApply(plan, flags, {
      connection,
      ctx,
      logger,
      concurrency,
      graceMs,
      startedAt,
      row,
      lines: humanLines(flags, ctx),
    });
  } finally {
    reading.finish();
    await connection.close();
  }
}

async function planFromManifests(
  paths: readonly string[],
  flags: ApplyFlags,
  connection: Connection,
  reading: ReadProgress,
  ctx: CommandContext,
): Promise<Plan | CommandOutcome> {
  const noPathGiven = paths.length === 0;
  const manifestPaths = noPathGiven ? ['.'] : paths;
  const prepared = await preparePlan(manifestPaths, reading.api, {
    load: loadOptions(flags, ctx, connection),
    plan: parsePlanOptions(flags, KINDS),
    signal: ctx.shutdown,
    // What was read is said before the account is read, which can take minutes.
    onLoaded: (desired, expected) => {
      const read = manifestsRead(desired, manifestPaths, noPathGiven);
      for (const line of manifestsReadLines(read, { always: true })) ctx.stderr.write(`${line}\n`);
      reading.start(expected);
    },
  });
  reading.finish();
  if (!prepared.ok) {
    writeManifestErrors(prepared.errors, flags, ctx);
    return 'manifests_invalid';
  }
  return prepared.value.plan;
}

/** Human lines for stderr: off a terminal with `--log-format text`, where the logger's records would otherwise go. */
function humanLines(flags: ApplyFlags, ctx: CommandContext): ((line: string) => void) | undefined {
  if (ctx.stderr.isTTY === true || flags.logFormat !== 'text') return undefined;
  return (line) => ctx.stderr.write(`${line}\n`);
}

/** `--plan FILE`: the plan made now, applied only as far as the saved plan confirms it (apply-saved-plan.ts). */
async function planFromFile(
  file: string,
  paths: readonly string[],
  flags: ApplyFlags,
  connection: Connection,
  reading: ReadProgress,
  ctx: CommandContext,
): Promise<Plan | CommandOutcome> {
  const outcome = await savedPlanToApply(
    file,
    paths,
    flags,
    reading,
    ctx,
    loadOptions(flags, ctx, connection),
  );
  if ('manifestErrors' in outcome) {
    writeManifestErrors(outcome.manifestErrors, flags, ctx);
    return 'manifests_invalid';
  }
  return 'done' in outcome ? outcome.done : outcome.apply;
}

interface ApplyContext {
  readonly connection: Connection;
  readonly ctx: CommandContext;
  readonly logger: Logger;
  readonly concurrency: number;
  readonly graceMs: number;
  /** performance.now() when the command started: the summary's time is the whole run's. */
  readonly startedAt: number;
  /** The terminal row progress is drawn on; undefined when stderr is not a terminal. */
  readonly row: TerminalRow | undefined;
  /** Off a terminal with `--log-format text`: where progress writes its human lines. */
  readonly lines: ((line: string) => void) | undefined;
}

async function confirmAndApply(plan: Plan, flags: ApplyFlags, apply: ApplyContext): Promise<CommandOutcome> {
  const { ctx } = apply;
  const ui = ctx.jsonUi;
  if (plan.errors.length > 0) {
    for (const error of plan.errors) {
      const where = error.source === undefined ? '' : `${formatLocation(error.source)}: `;
      ctx.stderr.write(`${where}${visibleText(error.message)}\n`);
    }
    if (ui !== undefined) {
      writePlanDiagnostics(ui, plan.errors);
      ui.summarize(`the plan has ${plan.errors.length} error(s); nothing was sent`, {
        outcome: 'plan_errors',
      });
    }
    return 'plan_errors';
  }
  if (plan.refusal !== undefined) throw new EdgesyncError('plan_refused', plan.refusal.message);
  if (plan.actions.length === 0) {
    if (ui === undefined) ctx.stdout.write('No changes.\n');
    else {
      writePlannedChanges(ui, plan);
      ui.summarize('No changes.', { outcome: 'no_changes' });
    }
    return 'ok';
  }
  if (ui === undefined) {
    await writePieces(
      ctx.stdout,
      planTextChunks(plan, { color: useColor(flags.color, ctx.stdout, ctx.env) }),
    );
  } else writePlannedChanges(ui, plan);
  if (flags.dryRun) {
    if (ui !== undefined) {
      writePlannedRequests(ui, plan);
      ui.summarize('dry run: nothing was sent', { outcome: 'dry_run' });
      return 'ok';
    }
    ctx.stdout.write('\nRequests that would be sent (dry run, nothing sent):\n\n');
    await writePieces(ctx.stdout, requestsChunks(plan));
    return 'ok';
  }
  // The time a person takes to answer is not the run's.
  let answeringMs = 0;
  // `--plan FILE` with --format json: the plan was reviewed when it was saved, and JSON cannot ask.
  if (flags.yes !== true && ui === undefined) {
    if (ctx.stdin.isTTY !== true) {
      ctx.stderr.write(
        'edgesync: refusing to apply without confirmation: stdin is not a terminal; pass --yes\n',
      );
      return 'apply_not_confirmed';
    }
    const askedAt = performance.now();
    const confirmed = await confirm(ctx);
    answeringMs = performance.now() - askedAt;
    if (!confirmed) {
      ctx.stderr.write('Apply cancelled.\n');
      return 'apply_not_confirmed';
    }
  }
  // With the JSON UI, stdout has every action: stderr keeps only a terminal's row.
  const lines = ui === undefined ? apply.lines : undefined;
  const reporter = createProgressReporter({
    logger: apply.logger,
    budget: apply.connection.budget,
    signal: ctx.shutdown,
    ...(apply.row === undefined ? {} : { row: apply.row }),
    ...(lines === undefined ? {} : { lines }),
  });
  let result: ApplyResult;
  try {
    result = await executePlan(plan, {
      api: apply.connection.api,
      concurrency: apply.concurrency,
      graceMs: apply.graceMs,
      signal: ctx.shutdown,
      logger: apply.logger,
      onProgress:
        ui === undefined
          ? reporter.onProgress
          : (event) => {
              if (apply.row !== undefined) reporter.onProgress(event);
              writeEvent(ui, progressEventJson(event));
            },
      kindByName,
    });
  } finally {
    reporter.finish();
  }
  const runMs = performance.now() - apply.startedAt - answeringMs;
  for (const line of formatUnappliedActions(result)) ctx.stderr.write(`${line}\n`);
  if (ui !== undefined) {
    const summary = applySummaryJson(result, runMs);
    ui.summarize(summary.message, summary.fields);
  } else {
    ctx.stdout.write(`${formatApplySummary(result, runMs)}\n`);
    const hint = formatFinishHint(result);
    if (hint !== undefined) ctx.stdout.write(`${hint}\n`);
  }
  return applySucceeded(result) ? 'ok' : 'apply_incomplete';
}

async function confirm(ctx: CommandContext): Promise<boolean> {
  const prompt = createInterface({ input: ctx.stdin, output: ctx.stdout, terminal: false });
  try {
    const answer = await prompt.question(`\n${CONFIRMATION}`, { signal: ctx.shutdown });
    return answer.trim() === 'yes';
  } catch {
    return false;
  } finally {
    prompt.close();
  }
}

function writeManifestErrors(errors: readonly ManifestError[], flags: ApplyFlags, ctx: CommandContext): void {
  for (const line of manifestErrorLines(errors, wantsDetail(flags.logLevel))) ctx.stderr.write(`${line}\n`);
  if (ctx.jsonUi !== undefined) {
    writeManifestDiagnostics(ctx.jsonUi, errors);
    ctx.jsonUi.summarize(`${errors.length} manifest problem(s); nothing was read or sent`, {
      outcome: 'manifests_invalid',
    });
  }
}

/** The load of the manifests, its parsing workers under the heap growth limit the command set (heap-growth.ts). */
function loadOptions(flags: ApplyFlags, ctx: CommandContext, connection: Connection): LoadOptions {
  return {
    ...builtInLoad(),
    env: ctx.env,
    owner: flags.owner,
    allowOutsideRoot: flags.allowOutsideRoot ?? false,
    cwd: ctx.cwd,
    onSecret: (value) => connection.secrets.add(value),
    parsing: { runtimeFlags: limitHeapGrowth() },
  };
}
