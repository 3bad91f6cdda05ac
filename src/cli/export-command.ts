import { resolve } from 'node:path';
import { OptionError } from '../errors.js';
import type { AccountExport } from '../export/build-export.js';
import { exportAccount } from '../export/export-account.js';
import { exportToJson } from '../export/export-json.js';
import { renderManifests } from '../export/render-manifests.js';
import { type WriteExportResult, writeExport } from '../export/write-export.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import { MANIFEST_SCHEMA_ID } from '../kinds/kind-schema.js';
import { KINDS } from '../kinds/registry.js';
import { visibleJson, visibleText } from '../visible-text.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { openConnection } from './connection.js';
import type { ExportCommandFlags } from './export-flags.js';
import { exportIdAttribute } from './export-id-flag.js';
import { loggerFor } from './logger.js';
import { parseOwner } from './plan-options.js';

export async function runExport(flags: ExportCommandFlags, ctx: CommandContext): Promise<CommandOutcome> {
  const owner = parseOwner(flags.owner);
  const kinds = selectedKinds(flags.kinds);
  const idsByKind: Partial<Record<KindName, readonly string[]>> = {};
  const warnings: string[] = [];
  for (const kind of KINDS) {
    const flag = kind.exportIdFlag;
    if (flag === undefined) continue;
    const ids = (flags[exportIdAttribute(flag)] as readonly string[] | undefined) ?? [];
    for (const id of ids) {
      if (!id.startsWith(kind.idPrefix)) {
        throw new OptionError(flag, `expected an ID starting with ${kind.idPrefix} (found "${id}")`);
      }
    }
    idsByKind[kind.name] = ids;
    if (ids.length === 0 && flags.kinds?.includes(kind.name)) {
      warnings.push(`${kind.name} cannot be listed by the API: name each with ${flag} ID`);
    }
  }
  const logger = loggerFor(flags, ctx.stderr);
  const outDir = flags.out === undefined ? undefined : resolve(ctx.cwd, flags.out);
  const connection = await openConnection(flags, { logger });
  let exported: AccountExport;
  try {
    exported = await exportAccount(connection.api, {
      owner,
      includeUnmanaged: flags.includeUnmanaged ?? false,
      adopt: flags.adopt ?? false,
      kinds,
      idsByKind,
      sideFiles: outDir !== undefined,
      signal: ctx.shutdown,
    });
  } finally {
    await connection.close();
  }
  const manifests = renderManifests(exported, {
    layout: outDir === undefined || flags.singleFile ? 'single-file' : 'per-kind',
    schemaRef: flags.schema ?? MANIFEST_SCHEMA_ID,
    owner,
    kinds: kinds.map((kind) => kind.name),
  });
  for (const warning of [...warnings, ...exported.warnings])
    ctx.stderr.write(`warning: ${visibleText(warning)}\n`);
  const json = (out?: { readonly dir: string; readonly result: WriteExportResult }): string =>
    `${visibleJson(
      exportToJson(exported, {
        owner,
        kinds: kinds.map((kind) => kind.name),
        warnings,
        ...(out === undefined ? {} : { out }),
      }),
      2,
    )}\n`;
  if (outDir === undefined) {
    // stdout holds one manifest (a manifest file is one mapping), with CA PEMs inline; or its JSON.
    if (flags.format === 'json') ctx.stdout.write(json());
    else for (const manifest of manifests) ctx.stdout.write(manifest.content);
  } else {
    const { ids, ownedNames } = exported.present;
    const result = await writeExport(outDir, [...manifests, ...exported.sideFiles], {
      force: flags.force ?? false,
      scope: {
        // Module-only kinds are read by the IDs given, never in full.
        complete: new Set(kinds.filter((kind) => kind.ownership !== 'modules-only').map((kind) => kind.name)),
        stillInAccount: (kind, name, id) =>
          (id !== undefined && ids.has(id)) || ownedNames.has(`${kind}.${name}`),
      },
    });
    if (flags.format === 'json') ctx.stdout.write(json({ dir: flags.out ?? outDir, result }));
    ctx.stderr.write(`Wrote ${result.written.join(', ')} to ${flags.out}\n`);
    if (result.removed.length > 0)
      ctx.stderr.write(`Removed ${result.removed.join(', ')} (no longer in the account)\n`);
    if (result.kept.length > 0)
      ctx.stderr.write(
        `Left ${result.kept.join(', ')} as they were (kinds or objects this export did not read)\n`,
      );
  }
  ctx.stderr.write(`${summary(exported)}\n`);
  return 'ok';
}

function selectedKinds(names: readonly string[] | undefined): Kind[] {
  if (names === undefined || names.length === 0) return [...KINDS];
  for (const name of names) {
    if (!KINDS.some((kind) => kind.name === name)) {
      const names = KINDS.map((kind) => kind.name).join(', ');
      throw new OptionError('--kinds', `expected some of ${names} (found "${name}")`);
    }
  }
  return KINDS.filter((kind) => names.includes(kind.name));
}

function summary(exported: AccountExport): string {
  const { unmanaged, otherOwners, duplicates } = exported.skipped;
  const left: string[] = [];
  if (unmanaged > 0) left.push(`${unmanaged} unmanaged (--include-unmanaged exports them)`);
  if (otherOwners > 0) left.push(`${otherOwners} owned by other owners`);
  if (duplicates > 0) left.push(`${duplicates} older duplicate(s)`);
  const secrets =
    exported.secrets.length === 0
      ? ''
      : `; set ${exported.secrets.length} secret variable(s) listed in the header`;
  return `Exported ${exported.entries.length} entries${left.length > 0 ? `; left out ${left.join(', ')}` : ''}${secrets}`;
}
