import type { Command } from 'commander';
import { OptionError } from '../errors.js';
import type { Kind } from '../kinds/kind.js';
import type { PlanOptions } from '../plan/planner-options.js';

/** The planning flags as commander parses them. */
export interface PlanFlags {
  readonly owner: string;
  readonly maxDestroy?: string;
  readonly force?: boolean;
  readonly allowEmpty?: boolean;
  readonly target?: readonly string[];
  readonly exclude?: readonly string[];
  readonly allowOutsideRoot?: boolean;
}

function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

export function addPlanOptions(command: Command): Command {
  return command
    .option(
      '--owner <owner>',
      'ownership marker: only objects marked with this owner are changed or pruned',
      'default',
    )
    .option(
      '--max-destroy <n|n%>',
      'refuse plans that delete or replace more than this (default 10% of owned, at least 5)',
    )
    .option('--force', 'apply even when --max-destroy is exceeded')
    .option('--allow-empty', 'allow an empty manifest set to prune everything this owner owns')
    .option(
      '--target <kind[.name]>',
      'plan only this kind or entry (repeatable); one that matches nothing is an error',
      collect,
    )
    .option('--exclude <kind[.name]>', 'leave this kind or entry out of the plan (repeatable)', collect)
    .option('--allow-outside-root', 'let { file: } references leave the manifest directory');
}

const OWNER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
/** `KIND` or `KIND.NAME` (a NAME may go on into a module or route: `https_edges.web.mutual_tls`). */
const ADDRESS_PATTERN = /^([a-z_]+)(\.[^.\s][^\s]*)?$/;

/** Checks an `--owner` value; every command that takes one calls this. */
export function parseOwner(owner: string): string {
  if (!OWNER_PATTERN.test(owner)) {
    throw new OptionError(
      '--owner',
      `expected letters, digits, ".", "_" or "-", at most 63 (found "${owner}")`,
    );
  }
  return owner;
}

/** The planning flags checked, for a plan of `kinds` (the registry in use). */
export function parsePlanOptions(flags: PlanFlags, kinds: readonly Kind[]): PlanOptions {
  parseOwner(flags.owner);
  const names = kinds.map((kind) => kind.name);
  const addresses = [
    ...(flags.target ?? []).map((address) => ['--target', address] as const),
    ...(flags.exclude ?? []).map((address) => ['--exclude', address] as const),
  ];
  for (const [flag, address] of addresses) {
    const kind = ADDRESS_PATTERN.exec(address)?.[1];
    if (kind === undefined || !names.includes(kind)) {
      throw new OptionError(
        flag,
        `expected KIND or KIND.NAME with KIND one of ${names.join(', ')} (found "${address}")`,
      );
    }
  }
  return {
    owner: flags.owner,
    ...(flags.maxDestroy === undefined ? {} : { maxDestroy: parseMaxDestroy(flags.maxDestroy) }),
    force: flags.force ?? false,
    allowEmpty: flags.allowEmpty ?? false,
    targets: flags.target ?? [],
    excludes: flags.exclude ?? [],
    kinds,
  };
}

export function parseMaxDestroy(value: string): { count: number } | { percent: number } {
  const match = /^(\d+)(%?)$/.exec(value.trim());
  const amount = Number(match?.[1]);
  if (!match || !Number.isFinite(amount) || (match[2] === '%' && amount > 100)) {
    throw new OptionError(
      '--max-destroy',
      `expected a count like 5 or a percentage like 10% (found "${value}")`,
    );
  }
  return match[2] === '%' ? { percent: amount } : { count: amount };
}
