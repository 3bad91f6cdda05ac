import { SYNC_STATE_WORDS } from '../sync-state.js';
import { visibleText } from '../visible-text.js';
import { problemLines } from './status-commit-verdict.js';
import type { StatusView } from './status-read.js';

/** Lines shown of each list before "… and N more": one screen, as `flux get` gives. */
const MAX_LINES_PER_LIST = 10;

/**
 * The daemon's status as one screen of `label  value` rows: who it is
 * (owner, mode), what is live, how the last reconcile went, what waits or
 * differs, what is wrong (with file:line), and how it spends the budget.
 * Every string from the daemon passes through visibleText: the body is not
 * trusted to be free of terminal sequences.
 */
export function statusScreen(status: StatusView, daemon: string, now: number): string[] {
  const rows: [string, string][] = [];
  const ago = (at: string | null): string => (at === null ? '' : ` (${age(now - Date.parse(at))} ago)`);
  rows.push(['daemon', status.version === null ? daemon : `${daemon} (edgesync ${status.version})`]);
  rows.push(['owner', status.owner]);
  rows.push(['mode', status.mode]);
  if (status.suspended === true) {
    const since =
      status.suspension === null ? '' : ` since ${status.suspension.since} by ${status.suspension.by}`;
    rows.push(['suspended', `yes${since}: reads and reports, sends no write until edgesync resume`]);
  }
  rows.push(['ready', status.ready ? 'yes' : `no: ${status.notReadyReason ?? 'not ready'}`]);
  const git = status.git;
  if (git === null) rows.push(['live commit', 'unknown (the manifests are not in a git checkout)']);
  else {
    rows.push(['live commit', `${git.lastAppliedCommit ?? 'none yet'}${ago(git.lastAppliedAt)}`]);
    if (git.checkoutCommit !== git.lastAppliedCommit) {
      rows.push([
        'reconciled',
        `${git.checkoutCommit ?? 'no commit'} (read by the last reconcile, not live)`,
      ]);
    }
  }
  const reconcile = status.lastReconcile;
  rows.push([
    'last reconcile',
    reconcile === null
      ? 'none yet'
      : `${reconcile.result} (${reconcile.trigger}, ${(reconcile.durationMs / 1000).toFixed(1)} s, finished ${reconcile.finishedAt}${ago(reconcile.finishedAt)})`,
  ]);
  rows.push([
    'last success',
    status.lastSuccessAt === null ? 'none yet' : `${status.lastSuccessAt}${ago(status.lastSuccessAt)}`,
  ]);
  for (const [label, value] of differenceRows(status)) rows.push([label, value]);
  const cache = status.cache;
  if (cache !== null) {
    rows.push([
      'cache',
      `${cache.objects} objects, ${cache.complete ? 'complete' : 'incomplete'}, oldest full read ${cache.ageMs === null ? 'not yet done' : `${age(cache.ageMs)} ago`}`,
    ]);
    const requests = Object.entries(cache.requestsByPurpose)
      .map(([purpose, count]) => `${purpose} ${count}`)
      .join(', ');
    rows.push([
      'budget',
      `full reads take at most ${Math.round(cache.readShare * 100)}% (${cache.readShareRequestsPerMinute} requests/min); requests since start: ${requests || 'none'}`,
    ]);
  }
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  const lines = rows.map(([label, value]) => `${label.padEnd(width)}${visibleText(value)}`);
  const problems = problemLines(status);
  if (problems.length > 0) {
    lines.push('', 'problems:');
    for (const line of capped(problems)) lines.push(`  ${visibleText(line)}`);
  }
  return lines;
}

/**
 * What still differs, one row per word of the vocabulary (docs/glossary.md):
 * pending (Git asks for it), drift (changed behind edgesync's back), held (a
 * delete waiting to settle), skipped (listed with why under problems). A
 * daemon too old to tell pending from drift gets one row for both, named so.
 */
function differenceRows(status: StatusView): [string, string][] {
  const observing =
    status.suspended === true
      ? ' (suspended: not applied)'
      : status.mode === 'observe'
        ? ' (observe mode: not applied)'
        : '';
  const skipped =
    status.skippedEntries.length === 0
      ? 'none'
      : `${status.skippedEntries.length} entr${status.skippedEntries.length === 1 ? 'y' : 'ies'} (below)`;
  const held = listOf(status.heldDeletes, 'none', ' (deletes wait for --settle)');
  const left = status.differences;
  if (left === null) {
    const changes = status.lastPlan !== null && !status.lastPlan.applied ? status.lastPlan.changes : [];
    return [
      ['pending or drift', listOf(changes, 'none', observing || ' (not applied)')],
      ['held', held],
      ['skipped', skipped],
    ];
  }
  return [
    [SYNC_STATE_WORDS.pending, listOf(left.pending, 'none', observing)],
    [SYNC_STATE_WORDS.drift, listOf(left.drift, 'none', observing)],
    [SYNC_STATE_WORDS.held, listOf(left.held, 'none', ' (deletes wait for --settle)')],
    [SYNC_STATE_WORDS.skipped, skipped],
  ];
}

function listOf(items: readonly string[], none: string, suffix = ''): string {
  if (items.length === 0) return none;
  const shown = capped(items);
  return `${items.length}${suffix}: ${shown.join(', ')}`;
}

function capped(items: readonly string[]): string[] {
  const shown = items.slice(0, MAX_LINES_PER_LIST);
  return items.length > shown.length ? [...shown, `… and ${items.length - shown.length} more`] : shown;
}

/** 45 s, 3m, 2h, 4d: how long ago, to the unit a person reads. */
function age(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '0s';
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}
