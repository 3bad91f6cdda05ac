import { createWriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { parse } from 'yaml';
import { createApiClient } from '../src/api/client.js';
import { RequestBudget } from '../src/api/request-budget.js';
import { builtInLoad } from '../src/cli/built-in-registry.js';
import { heapGrowthFlags, limitHeapGrowth } from '../src/cli/heap-growth.js';
import { writePieces } from '../src/cli/write-pieces.js';
import type { KindName } from '../src/kinds/kind-name.js';
import { readLiveState } from '../src/kinds/read-live-state.js';
import { KINDS } from '../src/kinds/registry.js';
import { loadDesiredState } from '../src/manifest/load-desired-state.js';
import { planChanges } from '../src/plan/plan-changes.js';
import { planTextChunks } from '../src/plan/render-text.js';
import { withDesiredStrings } from '../src/plan-session/share-desired-strings.js';

/** What the child prints on its one stdout line. Times in milliseconds, memory in MB. */
export interface PlanFootprint {
  readonly entries: number;
  readonly loadMs: number;
  readonly readLiveMs: number;
  readonly planMs: number;
  /** Writing the plan's text, as `edgesync plan` prints it (to /dev/null). */
  readonly outputMs: number;
  readonly actions: number;
  readonly liveRequests: number;
  /** Peak RSS of the whole command: load, read, plan and output. */
  readonly maxRssMB: number;
  /** Peak RSS when planning ended, before the output. */
  readonly maxRssAfterPlanMB: number;
  /** Peak RSS when loading ended and when the live read ended (maxRSS is monotonic): where the peak is reached. */
  readonly maxRssAfterLoadMB: number;
  readonly maxRssAfterReadMB: number;
  /**
   * The floor's first pass, after the load in the same process: yaml's Lexer
   * and Parser are warm from the load, its Composer (which the load's CST
   * walk skips) is not.
   */
  readonly yamlParseMs: number;
  readonly jsonParseMs: number;
  /** The same parses once more, everything warm: the strictest floor. */
  readonly yamlParseWarmMs: number;
  readonly jsonParseWarmMs: number;
}

/**
 * One size of the CPU and memory benchmark, alone in its process so that
 * `maxRSS` is its own: load + validate, read the live state from the
 * emulator, plan, write the plan's text as `edgesync plan` does; then the floors (yaml.parse of the same files, JSON.parse
 * of the same list pages), after maxRSS has been read.
 * argv: <emulator URL> <manifest dir> <owner>; the key in EDGE_API_KEY.
 */
async function main(): Promise<void> {
  const [url, dir, owner] = process.argv.slice(2);
  const apiKey = process.env.EDGE_API_KEY;
  if (url === undefined || dir === undefined || owner === undefined || apiKey === undefined) {
    throw new Error('usage: plan-footprint-child <url> <manifest dir> <owner> (EDGE_API_KEY set)');
  }
  const api = createApiClient({
    baseUrl: url,
    apiKey,
    budget: new RequestBudget({ requests: 1_000_000, windowMs: 1000 }),
  });

  let mark = performance.now();
  const lap = (): number => {
    const now = performance.now();
    const elapsed = now - mark;
    mark = now;
    return elapsed;
  };
  // As `edgesync plan` does as it starts, so that the peak measured is the CLI's.
  limitHeapGrowth();
  const loaded = await loadDesiredState([dir], {
    ...builtInLoad(),
    owner,
    cwd: dir,
    parsing: { runtimeFlags: heapGrowthFlags },
  });
  if (!loaded.ok) throw new Error(`invalid manifests: ${loaded.errors[0]?.message}`);
  const loadMs = lap();
  const maxRssAfterLoadMB = process.resourceUsage().maxRSS / 1024;
  const idsByKind: Partial<Record<KindName, string[]>> = {};
  for (const kind of KINDS) if (kind.ownership === 'modules-only') idsByKind[kind.name] = [];
  // As readAndPlan does (src/plan-session/prepare-plan.ts).
  const live = await readLiveState(api, {
    kinds: KINDS,
    idsByKind,
    keep: withDesiredStrings(loaded.value, owner),
  });
  const readLiveMs = lap();
  const maxRssAfterReadMB = process.resourceUsage().maxRSS / 1024;
  const plan = planChanges(loaded.value, live, { kinds: KINDS, owner });
  const planMs = lap();
  const maxRssAfterPlanMB = process.resourceUsage().maxRSS / 1024;
  const sink = createWriteStream('/dev/null');
  await writePieces(sink, planTextChunks(plan));
  sink.end();
  await finished(sink);
  const outputMs = lap();
  const maxRssMB = process.resourceUsage().maxRSS / 1024;

  // The floors run under V8's own heap growth, as a script that only parses would: under the limit
  // they are slower (more collections), which would flatter the ratios.
  setFlagsFromString('--heap-growing-percent=0');
  setFlagsFromString('--semi-space-growth-factor=2');
  const names = (await readdir(dir)).filter((name) => name.endsWith('.yaml'));
  const texts = await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8')));
  lap();
  for (const text of texts) parse(text);
  const yamlParseMs = lap();
  // The yaml floor above blocks the loop for seconds, long past the emulator's keep-alive timeout:
  // let the client see the server's close of its idle sockets before reusing one ("other side closed").
  await new Promise((resolve) => setTimeout(resolve, 100));
  const pages: string[] = [];
  let next: string | null = `${url}/ip_policy_rules?limit=100`;
  while (next !== null) {
    const response: Response = await fetch(next, {
      headers: { Authorization: `Bearer ${apiKey}`, 'Service-Version': '2' },
    });
    const text = await response.text();
    pages.push(text);
    next = (JSON.parse(text) as { next_page_uri: string | null }).next_page_uri;
  }
  lap();
  for (const text of pages) JSON.parse(text);
  const jsonParseMs = lap();
  for (const text of texts) parse(text);
  const yamlParseWarmMs = lap();
  for (const text of pages) JSON.parse(text);
  const jsonParseWarmMs = lap();

  const footprint: PlanFootprint = {
    entries: loaded.value.entries.length,
    loadMs,
    readLiveMs,
    planMs,
    outputMs,
    actions: plan.actions.length,
    liveRequests: live.stats.requests,
    maxRssMB,
    maxRssAfterPlanMB,
    maxRssAfterLoadMB,
    maxRssAfterReadMB,
    yamlParseMs,
    jsonParseMs,
    yamlParseWarmMs,
    jsonParseWarmMs,
  };
  process.stdout.write(`${JSON.stringify(footprint)}\n`);
}

await main();
