/**
 * The row a progress display rewrites in place on a terminal (TerminalRow in
 * src/cli: it also keeps other lines written to the terminal from being
 * glued onto the row).
 */
export interface ProgressRow {
  /** The terminal's width; undefined when unknown (80 is assumed). */
  readonly columns: number | undefined;
  show(line: string): void;
  /** Clears the row so that what follows starts on a clean line. */
  clear(): void;
}

/** One part of a progress line: its text (absent parts are left out) and what separates it from the part before. */
export interface RowPart<Key extends string> {
  readonly key: Key;
  readonly text: string | undefined;
  /** ' · ' between figures, ' ' where a part qualifies the one before it. */
  readonly before: ' · ' | ' ' | ', ';
}

/**
 * The parts joined, fitted to `width` characters: parts are dropped in
 * `dropOrder` until the line fits, and only then is it cut, with an
 * ellipsis. A line wider than the terminal would wrap, and the row above it
 * would be left behind on every redraw.
 */
export function fitRow<Key extends string>(
  parts: readonly RowPart<Key>[],
  dropOrder: readonly Key[],
  width: number,
): string {
  let line = joinParts(parts, new Set());
  for (let dropped = 1; [...line].length > width && dropped <= dropOrder.length; dropped += 1) {
    line = joinParts(parts, new Set(dropOrder.slice(0, dropped)));
  }
  return cutToWidth(line, width);
}

function joinParts<Key extends string>(parts: readonly RowPart<Key>[], dropped: ReadonlySet<Key>): string {
  let line = '';
  for (const part of parts) {
    if (part.text === undefined || part.text === '' || dropped.has(part.key)) continue;
    line += line === '' ? part.text : `${part.before}${part.text}`;
  }
  return line;
}

function cutToWidth(line: string, width: number): string {
  const characters = [...line];
  return characters.length <= width ? line : `${characters.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** The widest line a row may hold: one less than the terminal, whose last column would wrap on some terminals. */
export function rowWidth(row: ProgressRow): number {
  return Math.max(10, (row.columns ?? 80) - 1);
}

/** `45s`, `2m24s`, `1h05m`: whole seconds, rounded up. */
export function formatDuration(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** `(next slot in 12 s)`: how long until the request budget's next slot. */
export function formatNextSlot(ms: number): string {
  return `(next slot in ${Math.ceil(ms / 1000)} s)`;
}

/** What a progress display reads of the request budget (RequestBudget). */
export interface BudgetView {
  snapshot(): { readonly free: number; readonly nextSlotInMs: number; readonly waiting: number };
  /** Milliseconds until `count` more requests asked for now could all have been sent. */
  sendableInMs(count: number): number;
}

/** Milliseconds until the budget's next slot while requests wait for one; undefined while none waits. */
export function budgetWaitMs(budget: BudgetView | undefined): number | undefined {
  const snapshot = budget?.snapshot();
  return snapshot !== undefined && snapshot.waiting > 0 && snapshot.nextSlotInMs > 0
    ? snapshot.nextSlotInMs
    : undefined;
}
