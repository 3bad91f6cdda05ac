import { resolve } from 'node:path';
import { createReadProgress } from '../apply/read-progress.js';
import { EdgesyncError } from '../errors.js';
import { KINDS } from '../kinds/registry.js';
import { expiryWarnings } from '../manifest/expiry-warnings.js';
import type { Plan } from '../plan/plan.js';
import { type PlanStats, planJsonChunks } from '../plan/render-json.js';
import { planTextChunks } from '../plan/render-text.js';
import { savedPlanChunks, toSavedPlan } from '../plan/saved-plan.js';
import { planContext } from '../plan/saved-plan-context.js';
import {
  type ManifestsRead,
  manifestsRead,
  manifestsReadLines,
  manifestsReadToJson,
} from '../plan-session/manifests-read.js';
import { preparePlan } from '../plan-session/prepare-plan.js';
import { visibleText } from '../visible-text.js';
import { builtInLoad } from './built-in-registry.js';
import { useColor } from './color-choice.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { openConnection } from './connection.js';
import { parseDuration } from './duration-option.js';
import { limitHeapGrowth } from './heap-growth.js';
import { renderDiagnostics } from './json-diagnostics.js';
import { wantsDetail } from './log-level.js';
import { loggerFor } from './logger.js';
import { manifestErrorLines } from './manifest-error-lines.js';
import type { PlanCommandFlags } from './plan-flags.js';
import { readPlanKey } from './plan-key-file.js';
import { parseMaxChars, renderMarkdownForRepo } from './plan-markdown.js';
import { parsePlanOptions } from './plan-options.js';
import { TerminalRow, writingAboveRow } from './terminal-row.js';
import { writeFilePieces, writePieces } from './write-pieces.js';

export async function runPlan(
  paths: readonly string[],
  flags: PlanCommandFlags,
  commandCtx: CommandContext,
): Promise<CommandOutcome> {
  const planOptions = parsePlanOptions(flags, KINDS);
  const maxChars = parseMaxChars(flags.maxChars);
  const caWarningMs = parseDuration('--ca-expiry-warning', flags.caExpiryWarning);
  // Read before the account is: a key file that cannot be used fails the run at once.
  const planKey =
    flags.out === undefined
      ? undefined
      : await readPlanKey(flags.planKeyFile, commandCtx.cwd, (line) => commandCtx.stderr.write(`${line}\n`));
  const runtimeFlags = limitHeapGrowth();
  // On a terminal, the read's progress is a row rewritten in place; every other line on stderr goes above it.
  const row = commandCtx.stderr.isTTY === true ? new TerminalRow(commandCtx.stderr) : undefined;
  const ctx = row === undefined ? commandCtx : writingAboveRow(commandCtx, row);
  const logger = loggerFor(flags, ctx.stderr);
  const started = performance.now();
  const noPathGiven = paths.length === 0;
  const manifestPaths = noPathGiven ? ['.'] : paths;
  const connection = await openConnection(flags, { logger });
  const reading = createReadProgress(connection.api, {
    logger,
    budget: connection.budget,
    ...(row === undefined ? {} : { row }),
    // Off a terminal, the read's progress is a human line unless logs are asked for as JSON.
    ...(row === undefined && flags.logFormat === 'text'
      ? { lines: (line: string) => ctx.stderr.write(`${line}\n`) }
      : {}),
  });
  try {
    const prepared = await preparePlan(manifestPaths, reading.api, {
      load: {
        ...builtInLoad(),
        env: ctx.env,
        owner: flags.owner,
        allowOutsideRoot: flags.allowOutsideRoot ?? false,
        cwd: ctx.cwd,
        onSecret: (value) => connection.secrets.add(value),
        parsing: { runtimeFlags },
      },
      plan: planOptions,
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
      if (flags.format === 'json') ctx.stdout.write(renderDiagnostics(prepared.errors));
      for (const line of manifestErrorLines(prepared.errors, wantsDetail(flags.logLevel))) {
        ctx.stderr.write(`${line}\n`);
      }
      ctx.stderr.write(`${prepared.errors.length} manifest error(s): nothing was planned\n`);
      return 'manifests_invalid';
    }
    const { plan, desired, live } = prepared.value;
    const read = manifestsRead(desired, manifestPaths, noPathGiven);
    for (const warning of expiryWarnings(desired.entries, planOptions.kinds, Date.now(), caWarningMs)) {
      ctx.stderr.write(`warning: ${visibleText(warning)}\n`);
    }
    const requestStats = connection.api.stats();
    const stats: PlanStats = {
      requests: requestStats.requests,
      pages: requestStats.pages,
      durationMs: Math.round(performance.now() - started),
    };
    await writePieces(ctx.stdout, await render(plan, { ...flags, maxChars }, { stats, read }, ctx));
    if (flags.out !== undefined && plan.errors.length === 0) {
      const file = resolve(ctx.cwd, flags.out);
      try {
        const narrowing = { targets: planOptions.targets ?? [], excludes: planOptions.excludes ?? [] };
        await writeFilePieces(
          file,
          savedPlanChunks(
            toSavedPlan(
              plan,
              manifestPaths,
              narrowing,
              planKey,
              planContext(plan, live, planOptions.kinds, plan.owner),
            ),
          ),
          0o600,
        );
      } catch (cause) {
        throw new EdgesyncError('plan_file_unwritable', `cannot write the plan file ${file}`, { cause });
      }
      ctx.stderr.write(
        `Saved the plan to ${flags.out}: apply it with \`edgesync apply --plan ${flags.out}${ownerArgument(flags.owner)} ${manifestPaths.join(' ')}\`\n`,
      );
      const withSecrets = plan.actions.filter((action) => action.sensitivePaths.length > 0).length;
      if (planKey === undefined && withSecrets > 0) {
        ctx.stderr.write(
          `warning: ${withSecrets} action(s) of the plan send a secret, and without --plan-key-file (EDGESYNC_PLAN_KEY_FILE) the file holds no digest of it: apply --plan will refuse them; give both jobs the same key (docs/apply.md, "The plan key")\n`,
        );
      }
    }
    return outcomeOf(plan, flags);
  } finally {
    reading.finish();
    await connection.close();
  }
}

/** ` --owner OWNER` unless the owner is the default one. */
function ownerArgument(owner: string): string {
  return owner === 'default' ? '' : ` --owner ${owner}`;
}

async function render(
  plan: Plan,
  flags: Omit<PlanCommandFlags, 'maxChars'> & { readonly maxChars: number },
  facts: { readonly stats: PlanStats; readonly read: ManifestsRead },
  ctx: CommandContext,
): Promise<Iterable<string>> {
  if (flags.format === 'json') {
    return planJsonChunks(plan, { stats: facts.stats }, { manifests_read: manifestsReadToJson(facts.read) });
  }
  if (flags.format === 'markdown') {
    const markdown = await renderMarkdownForRepo(
      plan,
      {
        maxChars: flags.maxChars,
        ...(flags.repoRoot === undefined ? {} : { repoRoot: flags.repoRoot }),
        fullPlanCommand: flags.out === undefined ? 'edgesync plan' : `edgesync show ${flags.out}`,
      },
      ctx.cwd,
    );
    return [markdown];
  }
  const color = useColor(flags.color, ctx.stdout, ctx.env);
  return planTextChunks(plan, { color });
}

function outcomeOf(plan: Plan, flags: PlanCommandFlags): CommandOutcome {
  if (plan.errors.length > 0) return 'plan_errors';
  if (plan.refusal !== undefined) return 'plan_refused';
  if (plan.actions.length > 0 && flags.detailedExitcode === true) return 'changes';
  return 'ok';
}
