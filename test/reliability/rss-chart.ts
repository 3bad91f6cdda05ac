/** One sample of the soak: when, the daemon's resident memory, and how long /healthz took. */
export interface SoakSample {
  /** Milliseconds since the soak started. */
  readonly atMs: number;
  readonly rssMb: number;
  readonly healthzMs: number;
  /** How long a plain server in another process took at the same moment: the machine's load alone. */
  readonly controlMs: number;
  /** The hostile change in progress. */
  readonly phase: string;
}

export interface ChartOptions {
  readonly title: string;
  readonly rssLimitMb: number;
  readonly healthzLimitMs: number;
}

const WIDTH = 900;
const HEIGHT = 420;
const LEFT = 60;
const RIGHT = 60;
const TOP = 50;
const BOTTOM = 60;

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * A self-contained SVG of RSS (left axis, MB) and /healthz latency (right
 * axis, ms) over the soak, with both limits drawn, for docs/reliability.md.
 */
export function renderRssChart(samples: readonly SoakSample[], options: ChartOptions): string {
  const endMs = Math.max(1, ...samples.map((sample) => sample.atMs));
  const rssTop = Math.max(options.rssLimitMb * 1.1, ...samples.map((sample) => sample.rssMb));
  const latencyTop = Math.max(options.healthzLimitMs * 1.1, ...samples.map((sample) => sample.healthzMs));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const x = (ms: number): number => LEFT + (ms / endMs) * plotWidth;
  const yRss = (mb: number): number => TOP + plotHeight - (mb / rssTop) * plotHeight;
  const yLatency = (ms: number): number => TOP + plotHeight - (ms / latencyTop) * plotHeight;
  const line = (points: readonly [number, number][]): string =>
    points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ');

  const maxRss = Math.max(...samples.map((sample) => sample.rssMb));
  const maxLatency = Math.max(...samples.map((sample) => sample.healthzMs));
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(options.title)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${LEFT}" y="22" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`,
    `<text x="${LEFT}" y="40" fill="#444">max RSS ${maxRss.toFixed(1)} MB (limit ${options.rssLimitMb}), max /healthz ${maxLatency.toFixed(1)} ms (limit ${options.healthzLimitMs}), ${samples.length} samples over ${(endMs / 1000).toFixed(0)} s</text>`,
    `<rect x="${LEFT}" y="${TOP}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#999"/>`,
  ];
  for (let tick = 0; tick <= 4; tick += 1) {
    const mb = (rssTop * tick) / 4;
    const ms = (latencyTop * tick) / 4;
    const py = yRss(mb);
    parts.push(
      `<line x1="${LEFT}" x2="${LEFT + plotWidth}" y1="${py.toFixed(1)}" y2="${py.toFixed(1)}" stroke="#eee"/>`,
      `<text x="${LEFT - 6}" y="${(py + 4).toFixed(1)}" text-anchor="end" fill="#1f5fbf">${mb.toFixed(0)}</text>`,
      `<text x="${LEFT + plotWidth + 6}" y="${(py + 4).toFixed(1)}" fill="#c0392b">${ms.toFixed(0)}</text>`,
    );
    const seconds = (endMs * tick) / 4 / 1000;
    parts.push(
      `<text x="${x((endMs * tick) / 4).toFixed(1)}" y="${TOP + plotHeight + 16}" text-anchor="middle" fill="#444">${seconds.toFixed(0)} s</text>`,
    );
  }
  parts.push(
    `<line x1="${LEFT}" x2="${LEFT + plotWidth}" y1="${yRss(options.rssLimitMb).toFixed(1)}" y2="${yRss(options.rssLimitMb).toFixed(1)}" stroke="#1f5fbf" stroke-dasharray="6 4"/>`,
    `<line x1="${LEFT}" x2="${LEFT + plotWidth}" y1="${yLatency(options.healthzLimitMs).toFixed(1)}" y2="${yLatency(options.healthzLimitMs).toFixed(1)}" stroke="#c0392b" stroke-dasharray="2 4"/>`,
    `<polyline fill="none" stroke="#c0392b" stroke-width="1" points="${line(samples.map((sample) => [x(sample.atMs), yLatency(sample.healthzMs)]))}"/>`,
    `<polyline fill="none" stroke="#1f5fbf" stroke-width="2" points="${line(samples.map((sample) => [x(sample.atMs), yRss(sample.rssMb)]))}"/>`,
    `<text x="16" y="${TOP + plotHeight / 2}" transform="rotate(-90 16 ${TOP + plotHeight / 2})" text-anchor="middle" fill="#1f5fbf">RSS (MB), dashed: limit</text>`,
    `<text x="${WIDTH - 12}" y="${TOP + plotHeight / 2}" transform="rotate(90 ${WIDTH - 12} ${TOP + plotHeight / 2})" text-anchor="middle" fill="#c0392b">/healthz (ms), dotted: limit</text>`,
    `<text x="${LEFT + plotWidth / 2}" y="${HEIGHT - 18}" text-anchor="middle" fill="#444">time since the daemon started; phases: ${escapeXml([...new Set(samples.map((sample) => sample.phase))].join(', '))}</text>`,
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
}
