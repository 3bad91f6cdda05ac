import { OPERATIONS } from '../../plan/plan.js';
import { DIFFERENCES, formatDifferences } from '../../sync-state.js';
import { type DaemonEvent, RESULT_TONE } from '../daemon-events.js';
import type { DaemonStatus, ManifestProblem } from '../daemon-status.js';
import type { RecordInventory } from '../record-inventory.js';
import { htmlText, identifierHtml } from './html-text.js';
import { objectsSection } from './objects-table.js';
import { renderChartLegend, renderRequestChart } from './request-chart.js';
import type { MinuteRequests } from './request-history.js';
import { STATUS_PAGE_STYLE } from './status-page-style.js';

/** Seconds between the page's own reloads. */
export const STATUS_PAGE_REFRESH_SECONDS = 10;
/** Rows of a list (changes, errors, skipped entries) the page shows before it says how many more there are. */
const LIST_LIMIT = 100;

/** What the page is made from: the daemon's status, its last hour of requests, and its budget. */
export interface StatusPageView {
  readonly status: DaemonStatus;
  /** The last hour's requests a minute, oldest first. */
  readonly minutes: readonly MinuteRequests[];
  /** The client's budget, requests a minute. */
  readonly budgetPerMinute: number;
  /** Milliseconds since the epoch, for "… ago". */
  readonly nowMs: number;
  /** The current record's run (`runs`): the reconcile the status's figures are from. @default not said */
  readonly reconcile?: number;
  /** What the owner manages, as of the last plan: the objects table. @default no table */
  readonly inventory?: RecordInventory;
  /** The page's query string: the table's filter (`kind`, `state`). @default none */
  readonly query?: URLSearchParams;
  /** The daemon's last events, newest first. @default none */
  readonly events?: readonly DaemonEvent[];
}

function badge(cls: string, text: string): string {
  return `<span class="badge ${cls}">${htmlText(text)}</span>`;
}

function ago(atIso: string | null, nowMs: number): string {
  if (atIso === null) return '<span class="muted">never</span>';
  return `${htmlText(atIso)} <span class="muted">(${htmlText(duration(nowMs - Date.parse(atIso)))} ago)</span>`;
}

function duration(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  return `${Math.round(minutes / 6) / 10} h`;
}

function definitions(rows: readonly (readonly [string, string])[]): string {
  return `<dl>${rows.map(([term, html]) => `<dt>${htmlText(term)}</dt><dd>${html}</dd>`).join('')}</dl>`;
}

function more(total: number): string {
  return total > LIST_LIMIT ? `<p class="muted">and ${total - LIST_LIMIT} more (see /status)</p>` : '';
}

/** `file:line:col`, as editors and CI annotations read it. */
function place(file: string | null, line: number | null, column: number | null): string {
  if (file === null) return '';
  return [file, line, line === null ? null : column].filter((part) => part !== null).join(':');
}

function commitSection(status: DaemonStatus, nowMs: number): string {
  const git = status.git;
  if (git === undefined || (git.checkoutCommit === null && git.lastAppliedCommit === null)) {
    return definitions([['live commit', '<span class="muted">not a git checkout</span>']]);
  }
  const behind = git.checkoutCommit !== null && git.checkoutCommit !== git.lastAppliedCommit;
  return definitions([
    [
      'live commit',
      git.lastAppliedCommit === null
        ? '<span class="warn">none applied yet</span>'
        : `<code>${htmlText(git.lastAppliedCommit)}</code>`,
    ],
    ['applied', ago(git.lastAppliedAt, nowMs)],
    [
      'checked out',
      git.checkoutCommit === null
        ? '<span class="muted">unknown</span>'
        : `<code>${htmlText(git.checkoutCommit)}</code>${behind ? ` ${badge('warn', 'not applied yet')}` : ''}`,
    ],
  ]);
}

function reconcileSection(status: DaemonStatus, nowMs: number, applyReconcile: string): string {
  const last = status.lastReconcile;
  const rows: [string, string][] =
    last === null
      ? [['last reconcile', '<span class="muted">none yet</span>']]
      : [
          ['result', badge(RESULT_TONE[last.result], last.result)],
          ['trigger', htmlText(last.trigger)],
          ['finished', ago(last.finishedAt, nowMs)],
          ['took', htmlText(duration(last.durationMs))],
        ];
  rows.push(['last success', ago(status.lastSuccessAt, nowMs)]);
  if (status.lastApply !== null) {
    const apply = status.lastApply;
    rows.push([
      'last apply',
      `${htmlText(
        `${apply.done} done, ${apply.failed} failed, ${apply.skipped} skipped, ${apply.notStarted} not started${apply.interrupted ? ', interrupted' : ''}`,
      )} <span class="muted">${htmlText(applyReconcile)}</span>`,
    ]);
  }
  return definitions(rows);
}

/** The suspension, beside the mode: who suspended the daemon and since when, and how to end it. */
function suspendedBadge(status: DaemonStatus): string {
  const suspension = status.suspension;
  if (status.suspended !== true || suspension === undefined || suspension === null) return '';
  return ` ${badge('bad', `suspended since ${suspension.since} by ${suspension.by}: drift is read and reported, no write is sent until edgesync resume`)}`;
}

function planSection(status: DaemonStatus): string {
  const plan = status.lastPlan;
  if (plan === null) return '<p class="muted">No plan yet.</p>';
  const counts = OPERATIONS.filter((operation) => plan.summary[operation] > 0).map(
    (operation) => `${plan.summary[operation]} ${operation}`,
  );
  const summary = `${counts.length === 0 ? 'no change' : counts.join(', ')}; ${plan.summary.unchanged} unchanged, ${plan.summary.unmanaged} unmanaged`;
  const left = status.differences ?? { pending: [], drift: [], held: [], skipped: [] };
  const counted = Object.fromEntries(DIFFERENCES.map((state) => [state, left[state].length]));
  const differing = DIFFERENCES.some((state) => left[state].length > 0);
  const why =
    plan.refusal !== undefined
      ? `: refused: ${plan.refusal.message}`
      : plan.errors.length > 0
        ? ': the plan has errors'
        : status.suspended === true && (left.pending.length > 0 || left.drift.length > 0)
          ? ': suspended, nothing is applied'
          : status.mode === 'observe' && (left.pending.length > 0 || left.drift.length > 0)
            ? ': observe mode applies nothing'
            : '';
  const state = differing
    ? badge('warn', `${formatDifferences(counted)}${why}`)
    : plan.applied
      ? badge('ok', `in sync: applied ${plan.changes.length} change(s)`)
      : badge('ok', 'in sync: nothing to change');
  // Nothing left to do: what the last reconcile applied is still worth a look.
  const applied =
    differing || !plan.applied || plan.changes.length === 0
      ? ''
      : `<h3 class="muted">Applied by the last reconcile</h3><ul class="changes">${plan.changes
          .slice(0, LIST_LIMIT)
          .map((address) => `<li><code>${htmlText(address)}</code></li>`)
          .join('')}</ul>${more(plan.changes.length)}`;
  return `<p>${state} ${htmlText(summary)}</p>${applied}`;
}

function skippedTable(status: DaemonStatus): string {
  const skipped = status.skippedEntries ?? [];
  if (skipped.length === 0) return '';
  return `<h3>${htmlText(`${skipped.length} entr${skipped.length === 1 ? 'y' : 'ies'} skipped: cannot be applied as things are; the rest was`)}</h3><div class="scroll"><table><tr><th>entry</th><th>where</th><th>reason</th><th>message</th><th>reconciles</th></tr>${skipped
    .slice(0, LIST_LIMIT)
    .map(
      (entry) =>
        `<tr><td><code class="id">${identifierHtml(`${entry.kind}.${entry.name}`)}</code></td><td><code class="id">${identifierHtml(place(entry.file, entry.line, entry.column))}</code></td><td><code class="id">${identifierHtml(entry.reason)}</code></td><td>${htmlText(entry.message)}</td><td>${entry.reconciles}</td></tr>`,
    )
    .join('')}</table></div>${more(skipped.length)}`;
}

function problemRow(problem: ManifestProblem): string {
  return `<tr><td><code class="id">${identifierHtml(place(problem.file, problem.line, problem.column))}</code></td><td><code class="id">${identifierHtml(problem.path)}</code></td><td>${htmlText(problem.message)}</td></tr>`;
}

/**
 * What needs a person, first on the page and each said once: invalid
 * manifests (from the last reconcile, above any figure of an older one),
 * entries skipped, plan errors and a refusal, apply failures, and the last
 * error when none of these already says it.
 */
function problemsSection(status: DaemonStatus, reconcile: string): string {
  const parts: string[] = [];
  const said = new Set<string>();
  if (status.manifestsValid === false) {
    parts.push(
      `<h3>${htmlText(`Manifests invalid in ${reconcile}: ${status.manifestErrors.length} error(s); the last valid ones are still enforced`)}</h3><div class="scroll"><table><tr><th>file:line:col</th><th>path</th><th>message</th></tr>${status.manifestErrors
        .slice(0, LIST_LIMIT)
        .map(problemRow)
        .join('')}</table></div>${more(status.manifestErrors.length)}`,
    );
    for (const problem of status.manifestErrors) said.add(problem.message);
  }
  parts.push(skippedTable(status));
  for (const entry of status.skippedEntries ?? []) said.add(entry.message);
  const plan = status.lastPlan;
  if (plan?.refusal !== undefined) {
    parts.push(`<p>${badge('bad', 'plan refused')} ${htmlText(plan.refusal.message)}</p>`);
    said.add(plan.refusal.message);
  }
  const planErrors = (plan?.errors ?? []).filter((error) => !said.has(error.message));
  if (planErrors.length > 0) {
    parts.push(
      `<div class="scroll"><table><tr><th>plan error</th><th>message</th></tr>${planErrors
        .slice(0, LIST_LIMIT)
        .map(
          (error) =>
            `<tr><td><code class="id">${identifierHtml(error.code)}</code></td><td>${htmlText(error.message)}</td></tr>`,
        )
        .join('')}</table></div>${more(planErrors.length)}`,
    );
    for (const error of planErrors) said.add(error.message);
  }
  for (const failure of status.lastApply?.failures.slice(0, LIST_LIMIT) ?? []) {
    parts.push(
      `<p>${badge('bad', 'apply failed')} <code class="id">${identifierHtml(failure.action)}</code> ${htmlText(failure.message)}</p>`,
    );
    said.add(failure.message);
  }
  const error = status.lastError;
  if (error !== null && ![...said].some((message) => error.message.includes(message))) {
    parts.push(
      `<p>${badge('bad', 'last error')} <code class="id">${identifierHtml(error.code)}</code> ${htmlText(error.message)} <span class="muted">(${htmlText(error.at)})</span></p>`,
    );
  }
  const html = parts.join('');
  return html === '' ? '' : `<h2 id="problems">Problems</h2>${html}`;
}

function eventsSection(events: readonly DaemonEvent[]): string {
  if (events.length === 0) return '<p class="muted">None yet.</p>';
  return `<div class="scroll"><table class="events"><tr><th>time</th><th>source</th><th>event</th></tr>${events
    .map(
      (event) =>
        `<tr><td><code>${htmlText(new Date(event.at).toISOString())}</code></td><td>${htmlText(event.source.replace('_', ' '))}</td><td class="${event.tone}">${htmlText(event.text)}</td></tr>`,
    )
    .join('')}</table></div>`;
}

function manifestSection(status: DaemonStatus): string {
  const state =
    status.manifestsValid === null
      ? badge('muted', 'not loaded yet')
      : status.manifestsValid
        ? badge('ok', 'valid')
        : badge('bad', `invalid: ${status.manifestErrors.length} error(s); the last valid state is enforced`);
  const errors =
    status.manifestErrors.length === 0 ? '' : '<p class="muted">Their errors are under Problems, above.</p>';
  const held = status.settle?.heldDeletes ?? [];
  const settle =
    held.length === 0
      ? ''
      : `<p>${badge('warn', `${held.length} delete(s) wait for the manifests to settle`)} ${htmlText(status.settle?.settlesAt ? `from ${status.settle.settlesAt}` : 'until the manifests are valid again')}</p>`;
  return `<p>${state} <span class="muted">${htmlText(status.paths.join(', '))}</span></p>${errors}${settle}`;
}

function cacheSection(status: DaemonStatus, nowMs: number): string {
  const cache = status.liveCache;
  if (cache === undefined) return '';
  const cycle = cache.lastFullCycle;
  const used = Object.entries(cache.requestsByPurpose)
    .map(([purpose, count]) => `${count} ${purpose}`)
    .join(', ');
  return definitions([
    [
      'cache age',
      cache.ageMs === null
        ? '<span class="warn">not read in full yet</span>'
        : htmlText(`${duration(cache.ageMs)} since the oldest full read`),
    ],
    [
      'cache',
      htmlText(
        `${cache.objects} objects, ${cache.complete ? 'complete' : `kinds to read: ${cache.kindsToRead.join(', ')}`}`,
      ),
    ],
    [
      'background read',
      cache.fullReadInProgressSince === null
        ? '<span class="muted">idle</span>'
        : `in progress since ${ago(cache.fullReadInProgressSince, nowMs)}`,
    ],
    [
      'last full cycle',
      cycle === null
        ? '<span class="muted">none yet</span>'
        : `${htmlText(`${duration(cycle.durationMs)}, ${cycle.requests} requests, finished`)} ${ago(cycle.finishedAt, nowMs)}`,
    ],
    ['requests since start', htmlText(used)],
  ]);
}

/**
 * The status page: one self-contained HTML document (its style inline, its
 * chart inline SVG, no script, no asset from anywhere) from the same status
 * `/status` serves. Every string from outside the page's own text (names,
 * files, service messages, commits) goes through `htmlText`.
 */
export function renderStatusPage(view: StatusPageView): string {
  const { status, nowMs } = view;
  const reconcile = view.reconcile === undefined ? 'the last reconcile' : `reconcile ${view.reconcile}`;
  const planRun = view.inventory?.asOf?.run;
  const planned = planRun === undefined ? '' : ` (reconcile ${planRun})`;
  const applyReconcile =
    planRun === undefined
      ? ''
      : status.lastPlan?.applied === true
        ? `(reconcile ${planRun})`
        : `(before reconcile ${planRun})`;
  const problems = problemsSection(status, reconcile);
  const readiness = status.ready
    ? badge('ok', 'ready')
    : badge(
        'bad',
        problems === '' ? `not ready: ${status.notReadyReason ?? 'starting'}` : 'not ready: see Problems',
      );
  const readShare = status.liveCache?.readShareRequestsPerMinute ?? 0;
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="refresh" content="${STATUS_PAGE_REFRESH_SECONDS}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<link rel="icon" href="data:,">',
    `<title>edgesync · ${htmlText(status.owner)}</title>`,
    `<style>${STATUS_PAGE_STYLE}</style></head><body>`,
    `<h1>edgesync · <span class="mono">${htmlText(status.owner)}</span></h1>`,
    `<p class="badges">${badge(status.mode === 'enforce' ? 'ok' : 'warn', `${status.mode} mode`)} ${readiness}${suspendedBadge(status)}</p>`,
    problems,
    commitSection(status, nowMs),
    view.inventory === undefined ? '' : objectsSection(view.inventory, view.query ?? new URLSearchParams()),
    `<h2>Last reconcile${view.reconcile === undefined ? '' : ` (${htmlText(reconcile)})`}</h2>`,
    reconcileSection(status, nowMs, applyReconcile),
    `<h2>Plan${htmlText(planned)}</h2>`,
    planSection(status),
    `<h2>Manifests${view.reconcile === undefined ? '' : ` (${htmlText(reconcile)})`}</h2>`,
    manifestSection(status),
    '<h2>Live-state cache (now)</h2>',
    cacheSection(status, nowMs),
    '<h2>Requests a minute, last hour</h2>',
    renderRequestChart({
      minutes: view.minutes,
      budgetPerMinute: view.budgetPerMinute,
      readSharePerMinute: readShare,
    }),
    renderChartLegend(),
    `<h2 id="events">Last events${view.events === undefined ? '' : ` (${view.events.length})`}</h2>`,
    eventsSection(view.events ?? []),
    `<footer>${htmlText(status.version === undefined ? 'edgesync' : `edgesync ${status.version}`)} · refreshes every ${STATUS_PAGE_REFRESH_SECONDS} s · made ${htmlText(new Date(nowMs).toISOString())} · <a href="status">/status</a> (JSON) · <a href="inventory">/inventory</a> (JSON) · <a href="metrics">/metrics</a></footer>`,
    '</body></html>\n',
  ].join('');
}
