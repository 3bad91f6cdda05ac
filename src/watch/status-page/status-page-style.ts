import { createHash } from 'node:crypto';

/**
 * The page's one style sheet, inline. The Content-Security-Policy allows
 * exactly this text by its hash: no other style, no script, no request to
 * any origin. The chart colours its parts by class, never by a `style`
 * attribute, which the policy would block.
 */
export const STATUS_PAGE_STYLE = `
:root { color-scheme: light dark; --ok: #2b8a3e; --warn: #e67700; --bad: #c92a2a; --muted: #868e96; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; padding: 1rem 1.5rem 2rem; max-width: 72rem; }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
h2 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; border-bottom: 1px solid var(--muted); padding-bottom: .15rem; }
.badges { margin: 0 0 .5rem; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: .6rem; border: 1px solid currentColor; margin-right: .35rem; font-size: .85rem; }
.ok { color: var(--ok); } .warn { color: var(--warn); } .bad { color: var(--bad); } .muted { color: var(--muted); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: 0; }
dt { color: var(--muted); } dd { margin: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .15rem .6rem .15rem 0; vertical-align: top; }
.scroll { overflow-x: auto; }
code.id { white-space: normal; word-break: normal; overflow-wrap: normal; }
table.objects td:nth-child(-n+4), table.events td:first-child { white-space: nowrap; }
table.objects td:nth-child(2) { white-space: normal; }
.filters { line-height: 1.8; }
.legend-states { list-style: none; padding: 0; margin: .2rem 0; }
h3 { font-size: .95rem; margin: .6rem 0 .3rem; }
th { color: var(--muted); font-weight: normal; }
code, .mono { font-family: ui-monospace, monospace; font-size: .9em; }
ul.changes { columns: 2 22rem; margin: .2rem 0; padding-left: 1.2rem; }
.chart { width: 100%; max-width: 60rem; height: auto; }
.chart text { font: 11px system-ui, sans-serif; fill: currentColor; }
.chart .axis { stroke: var(--muted); stroke-width: 1; }
.chart .write { fill: #e8590c; } .chart .targeted-read { fill: #1c7ed6; } .chart .full-read { fill: #adb5bd; }
.chart .budget { stroke: var(--bad); stroke-width: 1.5; stroke-dasharray: 6 4; }
.chart .share { stroke: var(--muted); stroke-width: 1; stroke-dasharray: 2 3; }
.legend span { margin-right: 1rem; } .legend i { display: inline-block; width: .8rem; height: .8rem; margin-right: .3rem; vertical-align: -.1rem; }
.legend .write { background: #e8590c; } .legend .targeted-read { background: #1c7ed6; } .legend .full-read { background: #adb5bd; }
footer { margin-top: 2rem; color: var(--muted); font-size: .85rem; }
`;

const STYLE_HASH = createHash('sha256').update(STATUS_PAGE_STYLE).digest('base64');

/**
 * The page's policy: nothing loads from anywhere (no script at all: it
 * refreshes by a meta tag), its one style sheet by hash, images only as
 * data: URLs (the empty favicon, so the browser asks the daemon for none),
 * and no other site may frame it or take a form from it.
 */
export const STATUS_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
