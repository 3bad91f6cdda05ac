/** One measured series of the scale chart: a value per account size. */
export interface ScaleSeries {
  readonly label: string;
  readonly color: string;
  readonly points: readonly { readonly entries: number; readonly value: number }[];
}

export interface ScalePanel {
  readonly title: string;
  readonly unit: string;
  readonly series: readonly ScaleSeries[];
}

const WIDTH = 380;
const HEIGHT = 260;
const MARGIN = { left: 56, right: 16, top: 30, bottom: 40 };

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Powers of ten (and their 2x, 5x) inside [low, high], for log-axis ticks. */
function logTicks(low: number, high: number): number[] {
  const ticks: number[] = [];
  for (let power = Math.floor(Math.log10(low)); power <= Math.ceil(Math.log10(high)); power += 1) {
    for (const step of [1, 2, 5]) {
      const tick = step * 10 ** power;
      if (tick >= low * 0.999 && tick <= high * 1.001) ticks.push(tick);
    }
  }
  return ticks;
}

function tickLabel(value: number): string {
  if (value >= 1000) return `${value / 1000}k`;
  return String(value);
}

function panel(spec: ScalePanel, offsetX: number): string {
  const points = spec.series.flatMap((series) => series.points).filter((point) => point.value > 0);
  if (points.length === 0) return '';
  const xs = points.map((point) => point.entries);
  const ys = points.map((point) => point.value);
  const [xLow, xHigh] = [Math.min(...xs), Math.max(...xs)];
  const [yLow, yHigh] = [Math.min(...ys) / 1.5, Math.max(...ys) * 1.5];
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (entries: number): number =>
    offsetX +
    MARGIN.left +
    ((Math.log(entries) - Math.log(xLow)) / (Math.log(xHigh) - Math.log(xLow))) * plotWidth;
  const y = (value: number): number =>
    MARGIN.top +
    plotHeight -
    ((Math.log(value) - Math.log(yLow)) / (Math.log(yHigh) - Math.log(yLow))) * plotHeight;
  const parts: string[] = [
    `<text x="${offsetX + WIDTH / 2}" y="18" text-anchor="middle" font-weight="bold">${escapeXml(spec.title)}</text>`,
    `<rect x="${offsetX + MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#999"/>`,
  ];
  for (const tick of logTicks(xLow, xHigh)) {
    parts.push(
      `<text x="${x(tick).toFixed(1)}" y="${HEIGHT - MARGIN.bottom + 14}" text-anchor="middle">${tickLabel(tick)}</text>`,
    );
  }
  for (const tick of logTicks(yLow, yHigh)) {
    const at = y(tick).toFixed(1);
    parts.push(
      `<line x1="${offsetX + MARGIN.left}" x2="${offsetX + WIDTH - MARGIN.right}" y1="${at}" y2="${at}" stroke="#eee"/>`,
      `<text x="${offsetX + MARGIN.left - 4}" y="${at}" text-anchor="end" dominant-baseline="middle">${tickLabel(tick)}</text>`,
    );
  }
  parts.push(
    `<text x="${offsetX + WIDTH / 2}" y="${HEIGHT - 6}" text-anchor="middle">entries (log)</text>`,
    `<text x="${offsetX + 12}" y="${MARGIN.top + plotHeight / 2}" text-anchor="middle" transform="rotate(-90 ${offsetX + 12} ${MARGIN.top + plotHeight / 2})">${escapeXml(spec.unit)} (log)</text>`,
  );
  for (const [index, series] of spec.series.entries()) {
    const shown = series.points.filter((point) => point.value > 0);
    const path = shown
      .map((point) => `${x(point.entries).toFixed(1)},${y(point.value).toFixed(1)}`)
      .join(' ');
    parts.push(`<polyline points="${path}" fill="none" stroke="${series.color}" stroke-width="2"/>`);
    for (const point of shown) {
      parts.push(
        `<circle cx="${x(point.entries).toFixed(1)}" cy="${y(point.value).toFixed(1)}" r="3" fill="${series.color}"/>`,
      );
    }
    const legendY = MARGIN.top + 14 + index * 14;
    parts.push(
      `<text x="${offsetX + MARGIN.left + 8}" y="${legendY}" fill="${series.color}">${escapeXml(series.label)}</text>`,
    );
  }
  return parts.join('\n');
}

/** A small hand-written SVG: one log-log panel per measure, side by side. */
export function renderScaleSvg(panels: readonly ScalePanel[], caption: string): string {
  const width = WIDTH * panels.length;
  const body = panels.map((spec, index) => panel(spec, index * WIDTH)).join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${HEIGHT + 20}" viewBox="0 0 ${width} ${HEIGHT + 20}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(caption)}</title>`,
    `<rect width="100%" height="100%" fill="white"/>`,
    body,
    `<text x="${width / 2}" y="${HEIGHT + 14}" text-anchor="middle" fill="#555">${escapeXml(caption)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
