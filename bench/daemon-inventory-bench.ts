import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { LiveObject } from '../src/kinds/live-state.js';
import { KINDS } from '../src/kinds/registry.js';
import type { DesiredEntry, DesiredState } from '../src/manifest/desired-state.js';
import type { ResourceChange } from '../src/plan/plan.js';
import type { DaemonStatus } from '../src/watch/daemon-status.js';
import { inventoryAnswer } from '../src/watch/inventory-endpoint.js';
import { InSyncLedger } from '../src/watch/reconcile/in-sync-ledger.js';
import { firstRecord, type ReconcileRecord } from '../src/watch/reconcile/reconcile-record.js';
import { RecordInventories } from '../src/watch/record-inventory.js';
import { objectsSection } from '../src/watch/status-page/objects-table.js';
import { startWatchServer } from '../src/watch/watch-server.js';
import { type BenchFigure, type BenchSection, figure, round } from './bench-figure.js';
import { ruleCidr, syntheticId } from './synthetic-account.js';

const SECTION = 'daemon-inventory';
const OWNER = 'bench';
const POLICY = syntheticId('ipp_', 'Inv', 0);

/**
 * A record as a daemon of an account of `size` rules holds it after a plan:
 * every rule managed and in the manifests, 1 in 100 drifted (its CIDR
 * changed behind the daemon's back), 1 in 200 pending (a new entry not yet
 * created). Made directly, as the record stage would: the bench is about
 * what `/inventory` does with a record, not about reading an account.
 */
function syntheticRecord(size: number): ReconcileRecord {
  const entries: DesiredEntry[] = [];
  const objects: LiveObject[] = [];
  const changes: ResourceChange[] = [];
  const drift: string[] = [];
  const pending: string[] = [];
  for (let index = 0; index < size; index += 1) {
    const name = `rule-${String(index).padStart(6, '0')}`;
    const spec = { ip_policy_id: POLICY, cidr: ruleCidr(index), action: 'allow' };
    entries.push({
      kind: 'ip_policy_rules',
      name,
      protect: false,
      spec,
      location: { file: 'manifests/rules.yaml', line: 3 + index * 4, column: 3 },
      fieldLocations: {},
    } as DesiredEntry);
    const address = `ip_policy_rules.${name}`;
    if (index % 200 === 199) {
      changes.push({
        address,
        op: 'create',
        kind: 'ip_policy_rules',
        name,
        changes: [],
        reason: 'not in the live account',
        actionKeys: [`create:${address}`],
      });
      pending.push(address);
      continue;
    }
    const id = syntheticId('ipr_', 'Inv', index);
    objects.push({
      kind: 'ip_policy_rules',
      id,
      marker: { owner: OWNER, name },
      spec,
      outputs: {},
      fingerprint: '',
    });
    if (index % 100 === 0) {
      changes.push({
        address,
        op: 'update',
        kind: 'ip_policy_rules',
        name,
        id,
        changes: [
          { path: 'cidr', before: '10.0.0.0/16', after: spec.cidr, sensitive: false, forcesReplace: false },
        ],
        reason: 'cidr changed',
        actionKeys: [`update:${address}`],
      });
      drift.push(address);
    }
  }
  const desired = { entries, files: ['manifests/rules.yaml'], hash: 'bench' } as unknown as DesiredState;
  const first = firstRecord({ periodMs: 0, maxMs: 0 }, new InSyncLedger());
  return {
    ...first,
    runs: 1,
    plan: {
      summary: { summary: {}, changes: [], errors: [], applied: false } as never,
      changes,
      live: {
        objects: { ip_policy_rules: objects },
        complete: true,
        missingIds: [],
        stats: { requests: 0, pages: 0, durationMs: 0 },
      },
      desired,
      run: 1,
      finishedAt: new Date(0).toISOString(),
      appliedActions: [],
    },
    differences: { pending, drift, held: [], skipped: [] },
  };
}

interface InventoryPageJson {
  readonly objects: readonly unknown[];
  readonly next: string | null;
}

/** Every page of `/inventory?{query}` at the largest limit, through HTTP: pages, objects, milliseconds. */
async function walk(url: string, query: string): Promise<{ pages: number; objects: number; ms: number }> {
  const started = performance.now();
  let after: string | null = null;
  let pages = 0;
  let objects = 0;
  do {
    const response = await fetch(
      `${url}/inventory?limit=1000${query}${after === null ? '' : `&after=${encodeURIComponent(after)}`}`,
    );
    const page = (await response.json()) as InventoryPageJson;
    pages += 1;
    objects += page.objects.length;
    after = page.next;
  } while (after !== null);
  return { pages, objects, ms: performance.now() - started };
}

/** Heap in use after a full collection, bytes. */
function settledHeap(gc: () => void): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/**
 * What `/inventory` costs the daemon at 100,000 objects: the inventory of a
 * record made once (its time, and the heap it holds while that record is
 * the current one), then a full page walk through the HTTP listener (100
 * pages of 1,000), and a filtered one (`state=drift`: 1,000 objects, every
 * object looked at once). In this process, on the daemon's own listener.
 */
export async function runDaemonInventoryBench(quick: boolean): Promise<BenchSection> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const size = quick ? 10_000 : 100_000;
  const record = syntheticRecord(size);
  const inventories = new RecordInventories(KINDS, OWNER);
  const before = settledHeap(gc);
  const built = performance.now();
  const inventory = inventories.of(record);
  const buildMs = performance.now() - built;
  const held = settledHeap(gc) - before;
  const server = await startWatchServer({
    listen: { host: '127.0.0.1', port: 0 },
    registry: new Registry(),
    status: () => ({}) as DaemonStatus,
    logger: pino({ level: 'silent' }),
    inventory: (query) =>
      inventoryAnswer(
        { owner: OWNER, inventory: () => inventories.of(record), manifestsValid: () => true },
        query,
      ),
  });
  try {
    await walk(server.url, '&state=drift');
    const cpu = process.cpuUsage();
    const whole = await walk(server.url, '');
    const used = process.cpuUsage(cpu);
    const drifted = await walk(server.url, '&state=drift');
    const views = 20;
    const tableStarted = performance.now();
    for (let view = 0; view < views; view += 1) objectsSection(inventory, new URLSearchParams());
    const tableMs = (performance.now() - tableStarted) / views;
    const figures: BenchFigure[] = [
      figure(
        SECTION,
        `inventory of ${size.toLocaleString('en')} objects: made once per record`,
        round(buildMs, 0),
        'ms',
        'the first /inventory (or page view) after a reconcile; later pages reuse it',
      ),
      figure(
        SECTION,
        `inventory of ${size.toLocaleString('en')} objects: heap held`,
        round(held / 2 ** 20, 1),
        'MB',
        `${round(held / inventory.objects.length, 0)} bytes an object, while the record is current (heapUsed after gc, with and without it)`,
      ),
      figure(
        SECTION,
        `full page walk: ${whole.pages} pages of 1,000`,
        round(whole.ms, 0),
        'ms',
        `${whole.objects} objects over HTTP on loopback, client and daemon in one process (CPU ${round((used.user + used.system) / 1000, 0)} ms); ${round(whole.ms / whole.pages, 1)} ms a page`,
      ),
      figure(
        SECTION,
        'filtered walk: state=drift',
        round(drifted.ms, 0),
        'ms',
        `${drifted.objects} objects in ${drifted.pages} page(s), every object looked at once`,
      ),
      figure(
        SECTION,
        "status page's objects table",
        round(tableMs, 1),
        'ms',
        `a view's 500 rows, problems first, out of ${size.toLocaleString('en')} objects (mean of ${views})`,
      ),
    ];
    return { section: SECTION, figures };
  } finally {
    await server.close();
  }
}
