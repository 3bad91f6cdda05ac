/** One printed figure of the benchmark run. Figures are reported, never judged pass/fail. */
export interface BenchFigure {
  /** Section of docs/performance.md it belongs to: `api-cost`, `throughput`, … */
  readonly section: string;
  readonly name: string;
  readonly value: number | string | boolean;
  /** `requests`, `ms`, `s`, `MB`, `req/s`, `x`, `%`, or empty for counts and flags. */
  readonly unit: string;
  /** How it was obtained or what it is compared with. */
  readonly note?: string;
}

export interface BenchSection {
  readonly section: string;
  readonly figures: readonly BenchFigure[];
  /** Raw measurements behind the figures, kept in results.json for later comparison. */
  readonly details?: Readonly<Record<string, unknown>>;
}

export function figure(
  section: string,
  name: string,
  value: number | string | boolean,
  unit = '',
  note?: string,
): BenchFigure {
  return { section, name, value, unit, ...(note === undefined ? {} : { note }) };
}

export function round(value: number, digits = 1): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Nearest-rank percentile of a non-empty sample (p in 0..100). */
export function percentile(sample: readonly number[], p: number): number {
  if (sample.length === 0) return Number.NaN;
  const sorted = [...sample].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export function median(sample: readonly number[]): number {
  return percentile(sample, 50);
}

/** Renders the figures as an aligned plain-text table. */
export function renderTable(figures: readonly BenchFigure[]): string {
  const rows = figures.map((item) => [
    item.section,
    item.name,
    `${typeof item.value === 'number' ? item.value.toLocaleString('en-US') : String(item.value)}${item.unit ? ` ${item.unit}` : ''}`,
    item.note ?? '',
  ]);
  const header = ['section', 'figure', 'value', 'note'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
