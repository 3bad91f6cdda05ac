import { createHash } from 'node:crypto';
import fc from 'fast-check';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { InventoryObject } from '../../src/inventory/inventory-object.js';
import { indexInventory } from '../../src/inventory/inventory-page.js';
import type { DaemonEvent } from '../../src/watch/daemon-events.js';
import type { DaemonStatus } from '../../src/watch/daemon-status.js';
import type { RecordInventory } from '../../src/watch/record-inventory.js';
import { REQUEST_PURPOSES, type RequestPurpose } from '../../src/watch/request-purpose.js';
import { renderStatusPage, type StatusPageView } from '../../src/watch/status-page/render-status-page.js';
import { HISTORY_MINUTES, RequestHistory } from '../../src/watch/status-page/request-history.js';
import { statusPageRenderer } from '../../src/watch/status-page/status-page-endpoint.js';
import { STATUS_PAGE_CSP, STATUS_PAGE_STYLE } from '../../src/watch/status-page/status-page-style.js';
import { WatchMetrics } from '../../src/watch/watch-metrics.js';
import { type RunningWatchServer, startWatchServer } from '../../src/watch/watch-server.js';
import { propertyRuns } from '../support/property-runs.js';

const NOW = Date.parse('2026-03-01T12:30:20.000Z');
const MINUTE = 60_000;

/** A status with every part the page shows, its free text (messages, names, files) all `text`. */
function statusWith(text: string): DaemonStatus {
  return {
    version: text,
    mode: 'observe',
    owner: 'platform-prod',
    paths: [text],
    ready: false,
    notReadyReason: text,
    manifestsValid: false,
    manifestErrors: [{ file: text, line: 3, column: 5, path: text, message: text }],
    desiredHash: 'h',
    lastReconcile: {
      trigger: 'change',
      result: 'drift',
      startedAt: '2026-03-01T12:30:00.000Z',
      finishedAt: '2026-03-01T12:30:01.000Z',
      durationMs: 1000,
    },
    lastSuccessAt: '2026-03-01T12:30:01.000Z',
    lastError: { code: text, message: text, at: '2026-03-01T12:29:00.000Z' },
    lastPlan: {
      summary: {
        create: 1,
        adopt: 0,
        update: 1,
        replace: 0,
        delete: 0,
        'put-module': 0,
        'delete-module': 0,
        unchanged: 3,
        unmanaged: 2,
      },
      changes: [text, `ip_policy_rules.${text}`],
      errors: [{ code: 'plan_error', message: text }],
      refusal: { code: 'max-destroy', message: text },
      applied: false,
    },
    lastApply: {
      done: 1,
      failed: 1,
      skipped: 0,
      notStarted: 0,
      interrupted: false,
      failures: [{ action: text, message: text }],
    },
    differences: { pending: [text], drift: [`ip_policy_rules.${text}`], held: [text], skipped: [text] },
    skippedEntries: [
      {
        kind: 'ip_policy_rules',
        name: text,
        reason: 'unique_key_taken',
        message: text,
        file: text,
        line: 7,
        column: 3,
        waitsFor: null,
        since: '2026-03-01T12:00:00.000Z',
        reconciles: 3,
      },
    ],
    settle: {
      periodMs: 10_000,
      maxMs: 60_000,
      settled: false,
      desiredSince: '2026-03-01T12:30:00.000Z',
      settlesAt: '2026-03-01T12:30:10.000Z',
      heldDeletes: [text],
      held: [
        {
          address: text,
          since: '2026-03-01T12:30:00.000Z',
          lastChangeAt: '2026-03-01T12:30:00.000Z',
          dueAt: '2026-03-01T12:30:10.000Z',
        },
      ],
      overdue: [],
    },
    git: { lastAppliedCommit: text, lastAppliedAt: '2026-03-01T12:00:00.000Z', checkoutCommit: `${text}x` },
    liveCache: {
      complete: false,
      kindsToRead: [text],
      objects: 5,
      ageMs: 95_000,
      readShare: 0.25,
      readShareRequestsPerMinute: 30,
      fullReadInProgressSince: '2026-03-01T12:30:00.000Z',
      lastFullCycle: {
        finishedAt: '2026-03-01T12:25:00.000Z',
        durationMs: 40_000,
        requests: 12,
        kindsChanged: [text],
      },
      requestsByPurpose: { 'full-read': 20, 'targeted-read': 2, write: 3 },
      lastTargetedReads: 1,
      lastChangeToFirstWriteMs: 40,
    },
  };
}

/** What the owner manages, as a record's inventory holds it: `objects` in the inventory's order. */
function inventoryOf(objects: readonly InventoryObject[]): RecordInventory {
  return {
    ...indexInventory(objects, ['ip_policy_rules', 'https_edges']),
    asOf: { run: 7, finishedAt: '2026-03-01T12:30:01.000Z' },
    complete: true,
  };
}

/** One object of each state, every free text (name, ID, reason, field) `text`. */
function objectsWith(text: string): InventoryObject[] {
  return [
    {
      kind: 'ip_policy_rules',
      name: `a-${text}`,
      id: text,
      state: 'in_sync',
      reason: null,
      fields: [],
      source: text,
    },
    {
      kind: 'ip_policy_rules',
      name: `b-${text}`,
      id: text,
      state: 'drift',
      reason: text,
      fields: [text],
      source: text,
    },
    {
      kind: 'ip_policy_rules',
      name: `c-${text}`,
      id: null,
      state: 'pending',
      reason: text,
      fields: [],
      source: text,
    },
    { kind: 'https_edges', name: text, id: text, state: 'skipped', reason: text, fields: [], source: null },
  ];
}

function eventsWith(text: string): DaemonEvent[] {
  return [
    { at: NOW - 1000, source: 'notification', tone: 'bad', text },
    { at: NOW - 2000, source: 'reconcile', tone: 'ok', text },
  ];
}

function page(
  status: DaemonStatus,
  history = new RequestHistory(),
  extra: Partial<Pick<StatusPageView, 'inventory' | 'events' | 'query' | 'reconcile'>> = {},
): string {
  return renderStatusPage({
    status,
    minutes: history.lastHour(NOW),
    budgetPerMinute: 120,
    nowMs: NOW,
    ...extra,
  });
}

/** Text no escaping may let through as markup: a tag, an attribute, a closing quote, a bidi override, a newline. */
const hostileText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '<script>alert(1)</script>',
    '"><img src=x onerror=alert(1)>',
    "' onmouseover='alert(1)",
    '</style><style>*{}</style>',
    '\u202eevil\u0007\n\r',
    '&lt;already&gt;',
  ),
);

describe('RequestHistory', () => {
  it('counts each request in its minute of the last hour, and nothing older, however long it runs', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.constantFrom(...REQUEST_PURPOSES), fc.integer({ min: 0, max: 5 * 60 * MINUTE })),
          { maxLength: 300 },
        ),
        fc.integer({ min: 0, max: 10 * MINUTE }),
        (requests, after) => {
          const history = new RequestHistory();
          const sorted = [...requests].sort((a, b) => a[1] - b[1]);
          for (const [purpose, at] of sorted) history.record(purpose, NOW + at);
          const now = NOW + (sorted.at(-1)?.[1] ?? 0) + after;

          const minutes = history.lastHour(now);

          const current = Math.floor(now / MINUTE);
          const expected = Array.from({ length: HISTORY_MINUTES }, (_, index) => {
            const minute = current - HISTORY_MINUTES + 1 + index;
            const counts = Object.fromEntries(REQUEST_PURPOSES.map((purpose) => [purpose, 0])) as Record<
              RequestPurpose,
              number
            >;
            for (const [purpose, at] of sorted)
              if (Math.floor((NOW + at) / MINUTE) === minute) counts[purpose] += 1;
            return { minuteStart: minute * MINUTE, counts };
          });
          expect(minutes).toEqual(expected);
        },
      ),
      { numRuns: propertyRuns({ small: 50, large: 200 }) },
    );
  });
});

describe('the status page', () => {
  it('shows owner, mode, live commit, last reconcile, pending plan, drift, errors with file:line, cache age and the chart', () => {
    const history = new RequestHistory();
    history.record('write', NOW - 2 * MINUTE);
    history.record('full-read', NOW);
    const status: DaemonStatus = {
      ...statusWith('x'),
      manifestErrors: [
        {
          file: 'manifests/rules.yaml',
          line: 12,
          column: 7,
          path: 'ip_policy_rules.a.cidr',
          message: 'bad cidr',
        },
      ],
      git: {
        lastAppliedCommit: 'c0ffee',
        lastAppliedAt: '2026-03-01T12:00:00.000Z',
        checkoutCommit: 'c0ffee',
      },
      lastPlan: {
        ...(statusWith('x').lastPlan as NonNullable<DaemonStatus['lastPlan']>),
        changes: ['ip_policy_rules.office', 'ip_policy_rules.lab'],
      },
      differences: {
        pending: ['ip_policy_rules.lab'],
        drift: ['ip_policy_rules.office'],
        held: [],
        skipped: [],
      },
    };

    const html = page(status, history, {
      reconcile: 9,
      inventory: inventoryOf([
        {
          kind: 'ip_policy_rules',
          name: 'lab',
          id: null,
          state: 'pending',
          reason: 'create: not in the live account',
          fields: [],
          source: 'manifests/rules.yaml:3',
        },
        {
          kind: 'ip_policy_rules',
          name: 'office',
          id: 'ipr_office',
          state: 'drift',
          reason: 'update: cidr changed',
          fields: ['cidr'],
          source: 'manifests/rules.yaml:7',
        },
      ]),
      events: eventsWith('reconcile 9 (change): drift'),
    });

    expect(html).toContain('platform-prod');
    expect(html).toContain('observe mode');
    expect(html).toContain('c0ffee');
    expect(html).toMatch(/result<\/dt><dd><span class="badge warn">drift</);
    // Each difference under its word of the vocabulary: a new entry is pending, a change behind edgesync's back drift.
    expect(html).toContain('1 pending, 1 drift: refused: x');
    // The objects, problems first (drift before pending), each state said with its meaning once.
    expect(html).toMatch(/<h2 id="objects">Objects <span class="muted">as of reconcile 7 /);
    expect(html.indexOf('ipr_office')).toBeLessThan(html.indexOf('>lab<'));
    expect(html).toContain(
      '<span class="badge warn">drift</span> the account changed behind edgesync&#39;s back',
    );
    expect(html).toContain(
      '<span class="badge warn">pending</span> Git says so and the account does not have it yet',
    );
    expect(html).toContain('<span class="muted">fields:</span> <code class="id">cidr</code>');
    expect(html).toContain('<h2>Plan (reconcile 7)</h2>');
    expect(html).toContain('<h2>Last reconcile (reconcile 9)</h2>');
    // Problems first: the manifest error above every figure of the reconciles.
    expect(html.indexOf('manifests/<wbr>rules.<wbr>yaml:<wbr>12:<wbr>7')).toBeLessThan(
      html.indexOf('<h2>Last reconcile'),
    );
    expect(html).toContain(
      'Manifests invalid in reconcile 9: 1 error(s); the last valid ones are still enforced',
    );
    expect(html).toContain('reconcile 9 (change): drift');
    expect(html.match(/bad cidr/g)).toHaveLength(1);
    expect(html).toContain('95 s since the oldest full read');
    expect(html).toContain('<svg class="chart"');
    expect(html).toContain('budget 120/min');
    expect(html).toContain('12:28 UTC: 1 writes, 0 targeted reads, 0 background reads');
    expect(html).toContain('12:30 UTC: 0 writes, 0 targeted reads, 1 background reads');
  });

  it('is inert: no script, no URL but its own links, its one style allowed by the CSP hash', () => {
    const html = page(statusWith('x'));
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1];
    const hash = createHash('sha256')
      .update(style ?? '')
      .digest('base64');

    expect(style).toBe(STATUS_PAGE_STYLE);
    expect(STATUS_PAGE_CSP).toContain(`style-src 'sha256-${hash}'`);
    expect(STATUS_PAGE_CSP).toMatch(/^default-src 'none';/);
    expect(html).not.toMatch(/<script|\sstyle=|\son[a-z]+=|javascript:/i);
    expect([...html.matchAll(/(?:href|src)="([^"]*)"/g)].map((match) => match[1])).toEqual([
      'data:,',
      'status',
      'inventory',
      'metrics',
    ]);
    // With the table: its filters are links to this page with a query string, and /inventory for the rest.
    const links = [
      ...page(statusWith('x'), undefined, {
        inventory: inventoryOf(objectsWith('x')),
        query: new URLSearchParams('state=drift'),
      }).matchAll(/(?:href|src)="([^"]*)"/g),
    ].map((match) => match[1]);
    expect(
      links.every(
        (link) =>
          link === 'data:,' ||
          /^(\.\/|\?[a-z_=,%&;0-9A-Z]+|status|inventory(\?[a-z_=,%&;0-9A-Z]+)?|metrics)$/.test(link ?? ''),
      ),
    ).toBe(true);
    expect(links).toContain('?state=drift&amp;kind=ip_policy_rules');
    // No word broken inside an identifier: nothing in the style breaks anywhere.
    expect(STATUS_PAGE_STYLE).not.toMatch(/break-all|anywhere/);
  });

  it('escapes every string from outside: hostile text adds no markup and no line', () => {
    const extra = (text: string) => ({ inventory: inventoryOf(objectsWith(text)), events: eventsWith(text) });
    const plain = page(statusWith('x'), undefined, extra('x'));
    // `<wbr>` marks where an identifier may wrap (after its punctuation): the page's own markup, no attribute, no script.
    const markup = (page: string) => ({
      html: page.replaceAll('<wbr>', ''),
    });
    const counts = ({ html }: { html: string }) => ({
      tags: html.match(/</g)?.length,
      quotes: html.match(/"/g)?.length,
      lines: html.split('\n').length,
    });

    fc.assert(
      fc.property(hostileText, (text) => {
        const html = page(statusWith(text), undefined, extra(text));

        expect(counts(markup(html))).toEqual(counts(markup(plain)));
        // biome-ignore lint/suspicious/noControlCharactersInRegex: raw control characters are what must not appear.
        expect(html).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202a-\u202e]/);
      }),
      { numRuns: propertyRuns({ small: 50, large: 200 }) },
    );
  });

  it('bounds its lists: 10,000 skipped entries show 100 and say how many more; 10,000 objects show 500, problems first, and link to /inventory', () => {
    const status = statusWith('x');
    const skipped = Array.from({ length: 10_000 }, (_, index) => ({
      ...(status.skippedEntries?.[0] as NonNullable<DaemonStatus['skippedEntries']>[number]),
      name: `rule-${index}`,
    }));
    const objects: InventoryObject[] = Array.from({ length: 10_000 }, (_, index) => ({
      kind: 'ip_policy_rules',
      name: `rule-${String(index).padStart(5, '0')}`,
      id: `ipr_${index}`,
      state: index % 1000 === 999 ? 'drift' : 'in_sync',
      reason: index % 1000 === 999 ? 'update: cidr changed' : null,
      fields: [],
      source: null,
    }));

    const html = page({ ...status, skippedEntries: skipped }, undefined, { inventory: inventoryOf(objects) });
    const drifted = page(status, undefined, {
      inventory: inventoryOf(objects),
      query: new URLSearchParams('state=drift'),
    });
    const bad = page(status, undefined, {
      inventory: inventoryOf(objects),
      query: new URLSearchParams('state=drifted'),
    });

    expect(html).toContain('and 9900 more');
    const rows = [
      ...html.matchAll(
        /<tr><td><code class="id">ip_<wbr>policy_<wbr>rules<\/code><\/td><td><code class="id">rule-<wbr>(\d+)/g,
      ),
    ].map((match) => match[1]);
    expect(rows).toHaveLength(500);
    // Problems first: the ten drifted objects, then those in sync in order.
    expect(rows.slice(0, 11)).toEqual([
      '00999',
      '01999',
      '02999',
      '03999',
      '04999',
      '05999',
      '06999',
      '07999',
      '08999',
      '09999',
      '00000',
    ]);
    expect(html).toContain(
      '500 of 10000 shown; every one, page by page: <a href="inventory">/inventory</a> (JSON)',
    );
    expect(drifted).toContain(
      '10 shown; as JSON: <a href="inventory?state=drift">/inventory?state=drift</a>',
    );
    expect(drifted).toContain('<strong>drift (10)</strong>');
    expect(bad).toContain(
      'filter ignored: state: expected states among in_sync, pending, drift, skipped, held (found &quot;drifted&quot;)',
    );
  });
});

describe('the status page at / of the daemon listener', () => {
  let server: RunningWatchServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves the page with its CSP, nosniff, no-store and no framing, and HEAD with no body', async () => {
    const metrics = new WatchMetrics([], () => NOW);
    metrics.recordRequest({
      method: 'PATCH',
      path: '/ip_policy_rules/ipr_1',
      kind: 'ip_policy_rules',
      status: 200,
      errorCode: undefined,
      durationMs: 3,
      attempt: 1,
    });
    server = await startWatchServer({
      listen: { host: '127.0.0.1', port: 0 },
      registry: metrics.registry,
      status: () => statusWith('x'),
      logger: pino({ level: 'silent' }),
      statusPage: statusPageRenderer({
        status: () => statusWith('x'),
        history: metrics.requestHistory,
        budget: { requests: 120, windowMs: 60_000 },
        clock: { now: () => NOW, setTimeout: () => () => {} },
      }),
    });

    const response = await fetch(`${server.url}/`);
    const html = await response.text();
    const head = await fetch(`${server.url}/`, { method: 'HEAD' });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(STATUS_PAGE_CSP);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(html).toContain('12:30 UTC: 1 writes');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
