import type { KindName } from '../kinds/kind-name.js';
import type { SavedNarrowing } from './saved-plan.js';

/** `KIND` or `KIND.NAME` (a NAME may go on into a module or route: `https_edges.web.mutual_tls`). */
const PATTERN = /^([a-z_]+)(\.[^.\s][^\s]*)?$/;

/** Whether `value` is a `--target`/`--exclude` pattern naming a kind of `kindNames` (the registry in use). */
export function isNarrowingPattern(value: unknown, kindNames: ReadonlySet<KindName>): value is string {
  if (typeof value !== 'string') return false;
  const kind = PATTERN.exec(value)?.[1];
  return kind !== undefined && kindNames.has(kind);
}

/**
 * Whether every address `inner` selects is one `outer` selects: patterns are
 * address prefixes that end at a `.` or a `[` (narrow-plan.ts).
 */
function within(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
}

/**
 * What `apply --plan` plans with: the command line's narrowing and the saved
 * plan's together, each only narrowing the other. Excludes add up; targets
 * are the patterns that lie inside both sides' (a side with no targets
 * selects everything). Undefined when both sides name targets and none lies
 * inside both: together they select nothing.
 */
export function combinedNarrowing(
  commandLine: SavedNarrowing,
  file: SavedNarrowing,
): SavedNarrowing | undefined {
  const excludes = [...new Set([...commandLine.excludes, ...file.excludes])];
  if (commandLine.targets.length === 0 || file.targets.length === 0) {
    return { targets: [...new Set([...commandLine.targets, ...file.targets])], excludes };
  }
  const targets = new Set<string>();
  for (const target of file.targets)
    if (commandLine.targets.some((outer) => within(target, outer))) targets.add(target);
  for (const target of commandLine.targets)
    if (file.targets.some((outer) => within(target, outer))) targets.add(target);
  return targets.size === 0 ? undefined : { targets: [...targets], excludes };
}
