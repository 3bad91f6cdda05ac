import { createReadProgress } from '../apply/read-progress.js';
import { OptionError } from '../errors.js';
import { buildInventory, countInventory } from '../inventory/build-inventory.js';
import type { InventoryObject } from '../inventory/inventory-object.js';
import { inventoryJsonChunks, inventorySummary, inventoryTextChunks } from '../inventory/render-inventory.js';
import type { Kind } from '../kinds/kind.js';
import { KINDS } from '../kinds/registry.js';
import { formatLocation } from '../manifest/source-location.js';
import { manifestsRead, manifestsReadLines } from '../plan-session/manifests-read.js';
import { preparePlan } from '../plan-session/prepare-plan.js';
import { isSyncState, SYNC_STATES, type SyncState } from '../sync-state.js';
import { visibleText } from '../visible-text.js';
import { builtInLoad } from './built-in-registry.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { openConnection } from './connection.js';
import { parseDuration } from './duration-option.js';
import type { GetFlags } from './get-flags.js';
import { limitHeapGrowth } from './heap-growth.js';
import { inventoryUrl, readDaemonInventory } from './inventory-read.js';
import { renderDiagnostics } from './json-diagnostics.js';
import { wantsDetail } from './log-level.js';
import { loggerFor } from './logger.js';
import { manifestErrorLines } from './manifest-error-lines.js';
import { parseOwner } from './plan-options.js';
import { shownUrl } from './status-read.js';
import { statusTokenHeader } from './status-token-header.js';
import { TerminalRow, writingAboveRow } from './terminal-row.js';
import { writePieces } from './write-pieces.js';

/** Which objects `get` lists: the kinds and states asked for, or all. */
export interface InventoryFilter {
  readonly kinds: ReadonlySet<string> | null;
  readonly states: ReadonlySet<SyncState> | null;
}

/**
 * `edgesync get`: the manifests loaded, the account read at the floor of
 * list requests (as `plan` reads it), planned, and every object the owner
 * manages listed with its state. Without a daemon's memory a difference is
 * `pending` (or `skipped` when the plan cannot apply it): drift and held
 * deletes are what only a daemon can tell.
 */
export async function runGet(
  paths: readonly string[],
  flags: GetFlags,
  commandCtx: CommandContext,
): Promise<CommandOutcome> {
  const owner = parseOwner(flags.owner);
  const filter = parseInventoryFilter(flags, KINDS);
  if (flags.daemonUrl !== undefined) return getFromDaemon(paths, flags, commandCtx, filter);
  const runtimeFlags = limitHeapGrowth();
  const row = commandCtx.stderr.isTTY === true ? new TerminalRow(commandCtx.stderr) : undefined;
  const ctx = row === undefined ? commandCtx : writingAboveRow(commandCtx, row);
  const logger = loggerFor(flags, ctx.stderr);
  const noPathGiven = paths.length === 0;
  const manifestPaths = noPathGiven ? ['.'] : paths;
  const connection = await openConnection(flags, { logger });
  const reading = createReadProgress(connection.api, {
    logger,
    budget: connection.budget,
    ...(row === undefined ? {} : { row }),
  });
  try {
    const prepared = await preparePlan(manifestPaths, reading.api, {
      load: {
        ...builtInLoad(),
        env: ctx.env,
        owner,
        allowOutsideRoot: flags.allowOutsideRoot ?? false,
        cwd: ctx.cwd,
        onSecret: (value) => connection.secrets.add(value),
        parsing: { runtimeFlags },
      },
      plan: { owner, force: false, allowEmpty: false, targets: [], excludes: [], kinds: KINDS },
      signal: ctx.shutdown,
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
      ctx.stderr.write(`${prepared.errors.length} manifest error(s): the inventory needs valid manifests\n`);
      return 'manifests_invalid';
    }
    const { desired, live, plan } = prepared.value;
    const all = buildInventory({ desired, live, plan, owner, kinds: KINDS });
    const objects = filterInventory(all, filter);
    await writeInventory(
      ctx,
      flags.format,
      { owner, source: 'account', complete: live.complete },
      objects,
      live.complete ? '' : ' (the account was not read whole)',
    );
    // What stops the whole plan (not one entry, which is listed as skipped) leaves the states unsure.
    const planWide = plan.errors.filter((error) => error.entry === undefined);
    for (const error of planWide) {
      const place = error.source === undefined ? '' : `${formatLocation(error.source)}: `;
      ctx.stderr.write(`error: ${place}${visibleText(error.message)}\n`);
    }
    return planWide.length > 0 ? 'plan_errors' : 'ok';
  } finally {
    reading.finish();
    await connection.close();
  }
}

/**
 * `get --daemon-url`: the daemon's `/inventory`, page by page, with its
 * states (drift and held included, which only a daemon can tell), and no
 * request to the service and no manifest read: the daemon has both.
 */
async function getFromDaemon(
  paths: readonly string[],
  flags: GetFlags,
  ctx: CommandContext,
  filter: InventoryFilter,
): Promise<CommandOutcome> {
  if (paths.length > 0) {
    throw new OptionError(
      '--daemon-url',
      `lists what the daemon manages from its own manifests: give no paths (found "${paths[0]}")`,
    );
  }
  const url = inventoryUrl(flags.daemonUrl as string);
  const daemon = shownUrl(url).replace(/\/inventory$/, '');
  const inventory = await readDaemonInventory(
    url,
    {
      kinds: filter.kinds === null ? null : [...filter.kinds],
      states: filter.states === null ? null : [...filter.states],
    },
    ctx.shutdown,
    parseDuration('--read-timeout', flags.readTimeout),
    await statusTokenHeader(flags.statusTokenFile, ctx),
  );
  if (flags.owner !== 'default' && flags.owner !== inventory.owner) {
    throw new OptionError(
      '--owner',
      `the daemon at ${daemon} manages owner "${visibleText(inventory.owner)}" (found "${flags.owner}")`,
    );
  }
  const asOf = inventory.asOf;
  const notes = [
    asOf === null
      ? ' (the daemon has not planned yet)'
      : asOf.first === asOf.last
        ? ` (as of reconcile ${asOf.last}, ${asOf.finishedAt})`
        : ` (read while the daemon reconciled: reconciles ${asOf.first} to ${asOf.last})`,
    inventory.complete ? '' : ' (the account was not read whole)',
    inventory.manifestsValid === false
      ? " (the daemon's manifests are invalid: the last valid ones are listed)"
      : '',
  ];
  await writeInventory(
    ctx,
    flags.format,
    {
      owner: inventory.owner,
      source: 'daemon',
      daemon_url: daemon,
      as_of: asOf === null ? null : { reconcile: asOf.last, finished_at: asOf.finishedAt },
      manifests_valid: inventory.manifestsValid,
      complete: inventory.complete,
    },
    inventory.objects,
    notes.join(''),
  );
  return 'ok';
}

/** The objects on stdout (a table, or JSON with `header`), the summary line on stderr. */
async function writeInventory(
  ctx: CommandContext,
  format: GetFlags['format'],
  header: Readonly<Record<string, unknown>>,
  objects: readonly InventoryObject[],
  note: string,
): Promise<void> {
  const counts = countInventory(objects);
  if (format === 'json') {
    await writePieces(ctx.stdout, inventoryJsonChunks(header, counts, objects));
    ctx.stdout.write('\n');
  } else {
    await writePieces(ctx.stdout, inventoryTextChunks(objects));
  }
  ctx.stderr.write(`${inventorySummary(counts)}${note}\n`);
}

/** `--kind` and `--state`, each a comma-separated list checked against the registry and the vocabulary. */
export function parseInventoryFilter(
  flags: { readonly kind?: string; readonly state?: string },
  kinds: readonly Kind[],
): InventoryFilter {
  const list = (value: string | undefined): string[] | null =>
    value === undefined
      ? null
      : value
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== '');
  const kindNames = list(flags.kind);
  const known = kinds.map((kind) => kind.name);
  for (const name of kindNames ?? []) {
    if (!known.includes(name)) {
      throw new OptionError('--kind', `expected kinds among ${known.join(', ')} (found "${name}")`);
    }
  }
  const stateNames = list(flags.state);
  for (const name of stateNames ?? []) {
    if (!isSyncState(name)) {
      throw new OptionError('--state', `expected states among ${SYNC_STATES.join(', ')} (found "${name}")`);
    }
  }
  return {
    kinds: kindNames === null ? null : new Set(kindNames),
    states: stateNames === null ? null : new Set(stateNames as SyncState[]),
  };
}

export function filterInventory(
  objects: readonly InventoryObject[],
  filter: InventoryFilter,
): InventoryObject[] {
  return objects.filter(
    (object) =>
      (filter.kinds === null || filter.kinds.has(object.kind)) &&
      (filter.states === null || filter.states.has(object.state)),
  );
}
