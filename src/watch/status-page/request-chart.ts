import type { RequestPurpose } from '../request-purpose.js';
import { htmlText } from './html-text.js';
import type { MinuteRequests } from './request-history.js';

/** The purposes as the chart stacks them, bottom up, with the words the page uses. */
const STACK: readonly { readonly purpose: RequestPurpose; readonly label: string }[] = [
  { purpose: 'full-read', label: 'background reads' },
  { purpose: 'targeted-read', label: 'targeted reads' },
  { purpose: 'write', label: 'writes' },
];

const WIDTH = 760;
const HEIGHT = 240;
const LEFT = 44;
const RIGHT = WIDTH - 96;
const TOP = 14;
const BOTTOM = HEIGHT - 26;

export interface RequestChartInput {
  /** Oldest first; one bar each. */
  readonly minutes: readonly MinuteRequests[];
  /** The client's whole budget, requests a minute. */
  readonly budgetPerMinute: number;
  /** Requests a minute background full reads may use (--read-share of the budget). */
  readonly readSharePerMinute: number;
}

function hhmm(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

/** A number as SVG writes it: at most one decimal. */
function at(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/**
 * The last hour's requests a minute by purpose as stacked bars, against the
 * budget's line and the background reads' share: inline SVG, coloured by
 * class, with a title per minute that a pointer or a screen reader reads.
 */
export function renderRequestChart(input: RequestChartInput): string {
  const { minutes, budgetPerMinute, readSharePerMinute } = input;
  const totals = minutes.map((minute) => STACK.reduce((sum, { purpose }) => sum + minute.counts[purpose], 0));
  const top = Math.max(1, budgetPerMinute, ...totals) * 1.1;
  const y = (value: number): number => BOTTOM - ((BOTTOM - TOP) * value) / top;
  const slot = (RIGHT - LEFT) / Math.max(1, minutes.length);
  const bars = minutes.map((minute, index) => {
    let base = 0;
    const rects = STACK.flatMap(({ purpose }) => {
      const count = minute.counts[purpose];
      if (count === 0) return [];
      const rect = `<rect class="${purpose}" x="${at(LEFT + index * slot + 1)}" y="${at(y(base + count))}" width="${at(Math.max(1, slot - 2))}" height="${at(y(base) - y(base + count))}"/>`;
      base += count;
      return [rect];
    });
    const words = [...STACK]
      .reverse()
      .map(({ purpose, label }) => `${minute.counts[purpose]} ${label}`)
      .join(', ');
    const title = `<title>${htmlText(`${hhmm(minute.minuteStart)} UTC: ${words}`)}</title>`;
    // An empty minute still gets a hit area for its title.
    const hit = `<rect fill="transparent" x="${at(LEFT + index * slot)}" y="${TOP}" width="${at(slot)}" height="${BOTTOM - TOP}"/>`;
    return `<g>${title}${hit}${rects.join('')}</g>`;
  });
  // Quarter hours back from the right edge (now), at the left edge of the minute that starts them.
  const labelsX = [60, 45, 30, 15, 0].flatMap((back) => {
    const index = minutes.length - back;
    if (index < 0) return [];
    const text = back === 0 ? 'now' : `−${back} min`;
    return [`<text x="${at(LEFT + index * slot)}" y="${BOTTOM + 16}" text-anchor="middle">${text}</text>`];
  });
  const line = (cls: string, value: number, label: string): string =>
    `<line class="${cls}" x1="${LEFT}" x2="${RIGHT}" y1="${at(y(value))}" y2="${at(y(value))}"/>` +
    `<text x="${RIGHT + 4}" y="${at(y(value) + 4)}">${htmlText(label)}</text>`;
  const description = `Requests a minute over the last hour by purpose; budget ${at(budgetPerMinute)} a minute, background reads' share ${at(readSharePerMinute)}; peak ${Math.max(0, ...totals)}.`;
  return [
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${htmlText(description)}" xmlns="http://www.w3.org/2000/svg">`,
    `<line class="axis" x1="${LEFT}" x2="${RIGHT}" y1="${BOTTOM}" y2="${BOTTOM}"/>`,
    `<line class="axis" x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${BOTTOM}"/>`,
    `<text x="${LEFT - 6}" y="${BOTTOM + 4}" text-anchor="end">0</text>`,
    `<text x="${LEFT - 6}" y="${at(y(budgetPerMinute) + 4)}" text-anchor="end">${at(budgetPerMinute)}</text>`,
    ...bars,
    line('budget', budgetPerMinute, `budget ${at(budgetPerMinute)}/min`),
    line('share', readSharePerMinute, `read share ${at(readSharePerMinute)}`),
    ...labelsX,
    '</svg>',
  ].join('');
}

/** The chart's legend, as HTML beside it. */
export function renderChartLegend(): string {
  return `<p class="legend">${STACK.map(
    ({ purpose, label }) => `<span><i class="${purpose}"></i>${label}</span>`,
  )
    .reverse()
    .join(' ')}</p>`;
}
