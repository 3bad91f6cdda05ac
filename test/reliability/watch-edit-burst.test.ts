import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import {
  assertBuilt,
  callService,
  type DaemonProcess,
  eventually,
  listRules,
  startDaemon,
} from '../watch/daemon-process.js';
import { parsePrometheusText, sampleSum } from '../watch/prometheus-text.js';

const POLICY = 'ipp_EditBurstPolicy000000000001';
const CIDRS = ['198.51.100.0/24', '203.0.113.0/24'] as const;

/** Every rule carries `version` as its description, so each edit is one PATCH per rule. */
function manifest(version: string): string {
  const rules = CIDRS.map(
    (cidr, index) =>
      `  rule-${index}:\n    ip_policy_id: ${POLICY}\n    cidr: ${cidr}\n    action: deny\n    description: ${version}\n`,
  );
  return `version: 1\nip_policy_rules:\n${rules.join('')}`;
}

type EditStyle = 'in place' | 'rename over';

/**
 * `rename over` is how editors, git and atomic writers save: the whole file
 * is written under another name in the same directory and renamed onto the
 * manifest. Temp names alternate between a hidden one (ignored by the
 * watcher) and a visible non-YAML one (write-file-atomic's `name.<hash>`).
 */
async function saveManifest(file: string, text: string, style: EditStyle, edit: number): Promise<void> {
  if (style === 'in place') {
    await writeFile(file, text);
    return;
  }
  const name = basename(file);
  const temp = join(dirname(file), edit % 2 === 0 ? `.${name}.${edit}.tmp` : `${name}.${edit}`);
  await writeFile(temp, text);
  await rename(temp, file);
}

/** The live descriptions once every rule exists and all carry `version`; undefined otherwise. */
async function allAt(emulator: RunningEmulator, version: string): Promise<true | undefined> {
  const rules = await listRules(emulator);
  const descriptions = CIDRS.map((cidr) => rules.find((rule) => rule.cidr === cidr)?.description);
  return descriptions.every((description) => description === version) ? true : undefined;
}

/**
 * How many rule reads the emulator has served, listings and GETs by ID: a
 * reconcile of an edit reads the rules it will write (by ID, from the
 * daemon's cache) before writing them.
 */
async function ruleReads(emulator: RunningEmulator): Promise<number> {
  const { body } = await callService(emulator, 'GET', '/_emulator/stats');
  return Object.entries((body as { byRoute: Record<string, number> }).byRoute)
    .filter(([route]) => route.startsWith('GET /ip_policy_rules'))
    .reduce((sum, [, count]) => sum + count, 0);
}

describe('edgesync watch under quick successive edits (the daemon as a process against the emulator)', () => {
  let emulator: RunningEmulator | undefined;
  let dir: string;
  let daemon: DaemonProcess | undefined;

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-watch-burst-'));
    await mkdir(join(dir, 'manifests'));
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await emulator?.close();
    emulator = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it.each<EditStyle>(['in place', 'rename over'])(
    'applies the final state of every burst of edits saved %s, including edits made while a reconcile runs',
    async (style) => {
      // Latency keeps each reconcile running long enough for edits to land inside it.
      const service = await startEmulator({
        seed: { ip_policies: [{ id: POLICY, description: 'burst tests' }] },
        latencyMs: 400,
      });
      emulator = service;
      const file = join(dir, 'manifests', 'rules.yaml');
      await writeFile(file, manifest('v0'));
      // A budget that never binds: this test is about the watcher and the loop, not the rate limit.
      daemon = await startDaemon(service, ['manifests', '--rate-limit', '1000/1s'], dir);
      await eventually(() => allAt(service, 'v0'));

      let edits = 0;
      const save = async (version: string): Promise<void> => {
        edits += 1;
        await saveManifest(file, manifest(version), style, edits);
      };
      for (let round = 1; round <= 5; round += 1) {
        const readsBefore = await ruleReads(service);
        await save(`r${round}-a`);
        // The run for `a` has read the live state and has not finished its PATCHes yet.
        await eventually(async () => ((await ruleReads(service)) > readsBefore ? true : undefined));
        await save(`r${round}-b`);
        // Inside the debounce window of `b`; the same content once more changes nothing but the mtime.
        await save(`r${round}-c`);
        await save(`r${round}-c`);
        await eventually(() => allAt(service, `r${round}-c`));
      }

      // A burst with no pause at all, then one with pauses around the debounce time.
      for (let index = 1; index <= 8; index += 1) {
        await save(`burst-${index}`);
      }
      await eventually(() => allAt(service, 'burst-8'));
      for (const [index, pauseMs] of [30, 150, 250, 400, 10].entries()) {
        await save(`paced-${index}`);
        await sleep(pauseMs);
      }
      await eventually(() => allAt(service, 'paced-4'));
    },
    120_000,
  );

  it('delays but never drops edits when the request budget is exhausted, and says that it waited', async () => {
    const service = await startEmulator({
      seed: { ip_policies: [{ id: POLICY, description: 'burst tests' }] },
    });
    emulator = service;
    const file = join(dir, 'manifests', 'rules.yaml');
    await writeFile(file, manifest('v0'));
    // Each reconcile of an edit costs 2 GETs (the rules it writes, read by ID) plus 2 PATCHes, so a few edits exhaust 8 requests per 2 s.
    daemon = await startDaemon(service, ['manifests', '--rate-limit', '8/2s'], dir);
    const running = daemon;
    await eventually(() => allAt(service, 'v0'));

    for (let index = 1; index <= 6; index += 1) {
      await saveManifest(
        file,
        manifest(`edit-${index}`),
        index % 2 === 0 ? 'rename over' : 'in place',
        index,
      );
      await sleep(250);
    }
    await eventually(() => allAt(service, 'edit-6'), 60_000);

    const metrics = parsePrometheusText(await (await fetch(`${running.url}/metrics`)).text());
    expect(sampleSum(metrics, 'edgesync_rate_limit_wait_seconds_total')).toBeGreaterThan(0);
    expect(running.stderr()).toContain('reconcile waited for the request budget');
  }, 120_000);
});
