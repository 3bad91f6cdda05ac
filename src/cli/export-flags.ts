import { Option } from 'commander';
import type { Kind } from '../kinds/kind.js';
import { NO_COLOR_ACCEPTED } from './color-choice.js';
import type { AddCommandFlags } from './command-context.js';
import { addConnectionOptions, type ConnectionFlags } from './connection-flags.js';
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
  /** One repeatable flag per kind the API cannot list (Kind.exportIdFlag: `--tcp-edge`), keyed by commander's attribute name. */
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

/** A kind the API cannot list gets the flag it declares, naming the IDs to export (Kind.exportIdFlag). */
function exportIdOptions(kinds: readonly Kind[]): Option[] {
  return kinds.flatMap((kind) =>
    kind.exportIdFlag === undefined
      ? []
      : [
          new Option(
            `${kind.exportIdFlag} <id>`,
            `export this ${kind.title} (${kind.idPrefix}…) and its modules; repeatable (the API cannot list them)`,
          ).argParser(collect),
        ],
  );
}

/**
 * `kinds`: the registry (the command table's row asks for it): `--kinds`
 * takes its names, and each kind it cannot list gets its ID flag.
 */
export const addExportFlags: AddCommandFlags<[flags: ExportCommandFlags]> = (command, kinds) => {
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
    .option(
      '--kinds <kinds>',
      `only these kinds, comma-separated (${kinds.map((kind) => kind.name).join(', ')})`,
      collectList,
    )
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
  for (const option of exportIdOptions(kinds)) command.addOption(option);
  addConnectionOptions(command);
  return command;
};
