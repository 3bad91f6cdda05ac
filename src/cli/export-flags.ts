import { Option } from 'commander';
import { KIND_NAMES, type KindName } from '../kinds/kind-name.js';
import { NO_COLOR_ACCEPTED } from './color-choice.js';
import type { AddCommandFlags } from './command-context.js';
import { addConnectionOptions, type ConnectionFlags } from './connection-flags.js';
import { exportIdFlag } from './export-id-flag.js';
import { addLogOptions, type LogFlags } from './log-flags.js';

/** SINGLE_FILE_NAME of src/export/render-manifests.ts (the exporter is not loaded to register its flags). */
const SINGLE_FILE_NAME = 'manifest.yaml';

export const EXPORT_FORMATS = ['yaml', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportCommandFlags extends ConnectionFlags, LogFlags {
  readonly owner: string;
  readonly out?: string;
  readonly kinds?: readonly string[];
  readonly includeUnmanaged?: boolean;
  readonly adopt?: boolean;
  readonly singleFile?: boolean;
  readonly force?: boolean;
  readonly schema?: string;
  /** What stdout gets: the manifest as YAML, or (with --out, a report) JSON. */
  readonly format: ExportFormat;
  /** One repeatable `--<kind title>` flag per module-only kind (`--tcp-edge`), keyed by commander's attribute name. */
  readonly [moduleOnlyIds: string]: unknown;
}

function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

function collectList(value: string, previous: readonly string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  ];
}

/**
 * The kinds whose ownership is `modules-only` (src/kinds/registry.ts), as
 * much of them as export's flags need. Written out because loading the kind
 * registry costs every command its start time (docs/performance.md);
 * test/cli/lazy-commands.test.ts checks this list against the registry.
 */
export const MODULE_ONLY_KINDS = [
  { name: 'tcp_edges', title: 'TCP edge', idPrefix: 'edgtcp_' },
  { name: 'tls_edges', title: 'TLS edge', idPrefix: 'edgtls_' },
] as const satisfies readonly { name: KindName; title: string; idPrefix: string }[];

/** Module-only kinds cannot be listed by the API: each gets a flag naming its IDs (`TCP edge` → `--tcp-edge`). */
function moduleOnlyOptions(): Option[] {
  return MODULE_ONLY_KINDS.map((kind) =>
    new Option(
      `${exportIdFlag(kind.title).long} <id>`,
      `export this ${kind.title} (${kind.idPrefix}…) and its modules; repeatable (the API cannot list them)`,
    ).argParser(collect),
  );
}

export const addExportFlags: AddCommandFlags<[flags: ExportCommandFlags]> = (command) => {
  command
    .description('write the live account as manifests (exit 0 written, 1 error)')
    .option(
      '--owner <owner>',
      'export the objects marked with this owner, under their marker names',
      'default',
    )
    .option('--out <dir>', 'write into this directory (one file per kind) instead of stdout')
    .addOption(
      new Option(
        '--format <format>',
        'stdout: the manifest as YAML, or JSON for tools (the manifest, secret variables, what was left out; with --out, the files written); errors then go to stdout as JSON diagnostics too',
      )
        .choices(EXPORT_FORMATS)
        .default('yaml'),
    )
    .option('--kinds <kinds>', `only these kinds, comma-separated (${KIND_NAMES.join(', ')})`, collectList)
    .option(
      '--include-unmanaged',
      'also export objects without an ownership marker (with id: applying adopts them)',
    )
    .option('--adopt', 'give every entry its id, so the first apply adopts it and writes the marker')
    .option('--single-file', `write one ${SINGLE_FILE_NAME} instead of one file per kind`)
    .option('--force', 'overwrite files in --out that an earlier export did not write')
    .option(
      '--schema <ref>',
      "what the yaml-language-server modeline points at (default: the schema's published $id)",
    )
    .option(...NO_COLOR_ACCEPTED);
  addLogOptions(command, 'warn');
  for (const option of moduleOnlyOptions()) command.addOption(option);
  addConnectionOptions(command);
  return command;
};
