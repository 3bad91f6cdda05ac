import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import {
  assertBuilt,
  callService,
  type DaemonProcess,
  eventually,
  getStatus,
  listRules,
  rulesManifest,
  startDaemon,
} from '../watch/daemon-process.js';

const POLICY = 'ipp_StatusPageTestPolicy0000001';
/**
 * Debian's Chromium (`apt-get install chromium`; .ci/run installs it), the
 * first `chromium` on PATH, or the binary EDGESYNC_CHROMIUM names. Missing, the test fails: it is skipped
 * only when EDGESYNC_SKIP_BROWSER_TESTS=1 says so.
 */
const BROWSER =
  process.env.EDGESYNC_CHROMIUM ??
  (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, 'chromium'))
    .find((path) => existsSync(path)) ??
  '/usr/bin/chromium';
const SKIP = process.env.EDGESYNC_SKIP_BROWSER_TESTS === '1';
if (SKIP) process.stderr.write('status-page-browser.test.ts: skipped (EDGESYNC_SKIP_BROWSER_TESTS=1)\n');

const RULES = {
  'office-0': { cidr: '198.51.100.0/29', description: 'head office' },
  'office-1': { cidr: '198.51.100.8/29', description: 'branch 1' },
  'office-2': { cidr: '198.51.100.16/29', description: 'branch 2' },
};

/** What the browser said while it showed the page: console errors and warnings, page errors, failed requests. */
interface BrowserComplaints {
  readonly lines: string[];
}

function watchComplaints(page: Page): BrowserComplaints {
  const complaints: BrowserComplaints = { lines: [] };
  // A CSP violation is reported on the console as an error ("Refused to apply inline style …").
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      complaints.lines.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => complaints.lines.push(`pageerror: ${error.message}`));
  page.on('requestfailed', (request) => complaints.lines.push(`requestfailed: ${request.url()}`));
  page.on('request', (request) => {
    if (!request.url().startsWith('http://127.0.0.1:')) complaints.lines.push(`request: ${request.url()}`);
  });
  return complaints;
}

/** The page's text, as a person reads it. */
function text(page: Page): Promise<string> {
  return page.locator('body').innerText();
}

describe.skipIf(SKIP)('the status page in a real browser (Chromium, driven by playwright-core)', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let browser: Browser;
  let daemon: DaemonProcess | undefined;

  beforeAll(async () => {
    assertBuilt();
    if (!existsSync(BROWSER)) {
      throw new Error(
        `no browser at ${BROWSER}: apt-get install -y chromium (.ci/run does), set EDGESYNC_CHROMIUM to another binary, or EDGESYNC_SKIP_BROWSER_TESTS=1 to skip this test`,
      );
    }
    browser = await chromium.launch({ executablePath: BROWSER });
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY, description: 'offices' }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-status-page-'));
    await mkdir(join(dir, 'manifests'));
    await writeFile(join(dir, 'manifests', 'offices.yaml'), rulesManifest(POLICY, RULES));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd: dir,
        stdio: 'ignore',
      });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'offices');
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
  });
  afterAll(async () => {
    await browser?.close();
    await emulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows the apply, then a manifest error by file:line, with no console error or CSP violation', async () => {
    daemon = await startDaemon(
      emulator,
      // No resync for the test's length: the page shows the apply's reconcile, not a later in-sync one.
      [
        'manifests',
        '--owner',
        'platform-prod',
        '--interval',
        '10m',
        '--rate-limit',
        '1200/60s',
        '--settle',
        '0s',
      ],
      dir,
    );
    const running = daemon;
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
    await eventually(async () => {
      const status = await getStatus(running);
      return status.last_reconcile?.result === 'applied' && status.git?.last_applied_commit === commit
        ? status
        : undefined;
    }, 60_000);
    const page = await browser.newPage();
    const complaints = watchComplaints(page);

    const response = await page.goto(running.url);
    const applied = await text(page);
    const writes = await page.locator('svg.chart rect.write').count();
    // The style sheet applied: the policy's hash matched it (a blocked one leaves the badge unstyled).
    const badgeRadius = await page
      .locator('.badge')
      .first()
      .evaluate(
        (node) =>
          (
            globalThis as unknown as { getComputedStyle(n: unknown): { borderRadius: string } }
          ).getComputedStyle(node).borderRadius,
      );

    await writeFile(
      join(dir, 'manifests', 'partners.yaml'),
      `version: 1\nip_policy_rules:\n  partner-a:\n    ip_policy_id: ${POLICY}\n    cidr: 203.0.113.300/32\n    action: allow\n`,
    );
    await eventually(async () => ((await getStatus(running)).manifests_valid === false ? true : undefined));
    await page.reload();
    const invalid = await text(page);
    const firstHeading = await page.locator('h2').first().innerText();
    const objectRows = await page.locator('table.objects tr').allInnerTexts();
    const eventRows = await page.locator('table.events tr').allInnerTexts();
    // A narrow window: an identifier wraps only at its punctuation (or its table scrolls), never inside a word.
    await page.setViewportSize({ width: 420, height: 900 });
    const brokenIds = (await page.evaluate(`(() => {
      const found = [];
      for (const node of document.querySelectorAll('code.id')) {
        const text = node.textContent;
        const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
        let top = null;
        let index = 0;
        for (let part = walker.nextNode(); part !== null; part = walker.nextNode()) {
          for (let at = 0; at < part.textContent.length; at += 1, index += 1) {
            const range = document.createRange();
            range.setStart(part, at);
            range.setEnd(part, at + 1);
            const y = range.getBoundingClientRect().top;
            if (top !== null && y > top + 2 && !/[._/:-]/.test(text[index - 1] || '')) found.push(text + ' at ' + index);
            top = y;
          }
        }
      }
      return found;
    })()`)) as string[];
    await unlink(join(dir, 'manifests', 'partners.yaml'));
    await page.close();

    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);
    expect(applied).toContain('edgesync · platform-prod');
    expect(applied).toContain('enforce mode');
    expect(applied).toMatch(/\bready\b/);
    expect(applied).not.toContain('not ready');
    expect(applied).toContain(commit);
    expect(applied).toMatch(/result\s+applied/);
    expect(applied).toContain('applied 3 change(s)');
    expect(applied).toContain('ip_policy_rules.office-0');
    expect(applied).toMatch(/cache age\s+\d+ (ms|s) since the oldest full read/);
    expect(writes).toBeGreaterThan(0);
    expect(badgeRadius).not.toBe('0px');
    expect(invalid).toMatch(/result\s+invalid/);
    expect(invalid).toContain('manifests/partners.yaml:5:5');
    // The broken file first: its error above every figure, said once.
    expect(firstHeading).toBe('Problems');
    expect(invalid.indexOf('manifests/partners.yaml:5:5')).toBeLessThan(invalid.indexOf('Last reconcile'));
    expect(invalid.split('203.0.113.300/32').length - 1).toBe(1);
    expect(invalid).toMatch(
      /Manifests invalid in reconcile \d+: 1 error\(s\); the last valid ones are still enforced/,
    );
    // The table of what is managed, as of the last plan, and the events with their times.
    expect(invalid).toMatch(/Objects as of reconcile \d+/);
    expect(objectRows[0]).toMatch(/^kind\s+name\s+id\s+state\s+reason$/);
    expect(objectRows.slice(1).map((row) => row.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'ip_policy_rules office-0',
      'ip_policy_rules office-1',
      'ip_policy_rules office-2',
    ]);
    for (const row of objectRows.slice(1)) expect(row).toMatch(/\sipr_\w+\s+in sync\s*$/);
    expect(eventRows[0]).toMatch(/^time\s+source\s+event$/);
    expect(eventRows).toContainEqual(
      expect.stringMatching(
        /^\d{4}-\d\d-\d\dT[\d:.]+Z\s+reconcile\s+reconcile \d+ \(change\): invalid; 1 manifest error\(s\)$/,
      ),
    );
    expect(eventRows).toContainEqual(
      expect.stringMatching(
        /reconcile 1 \(startup\): applied; applied 3 change\(s\); commit [0-9a-f]{12} live$/,
      ),
    );
    expect(brokenIds).toEqual([]);
    expect(invalid).toContain('ip_policy_rules.partner-a.cidr');
    expect(invalid).toContain('203.0.113.300/32');
    expect(complaints.lines).toEqual([]);
  });

  it('refreshes itself and shows drift found in observe mode, with no console error', async () => {
    daemon = await startDaemon(
      emulator,
      [
        'manifests',
        '--owner',
        'platform-prod',
        '--mode',
        'observe',
        '--interval',
        '1s',
        '--rate-limit',
        '1200/60s',
      ],
      dir,
    );
    const running = daemon;
    await eventually(
      async () => ((await getStatus(running)).last_reconcile?.result === 'in-sync' ? true : undefined),
      60_000,
    );
    const page = await browser.newPage();
    const complaints = watchComplaints(page);
    await page.goto(running.url);
    const before = await text(page);
    const target = (await listRules(emulator)).find((rule) => rule.description === 'branch 2');
    if (target === undefined) throw new Error('the applied rule office-2 is not in the emulator');

    await callService(emulator, 'PATCH', `/ip_policy_rules/${target.id}`, {
      description: 'edited in the console',
    });
    // No reload from the test: the page's own refresh (every 10 s) brings the drift in.
    await page.getByText('observe mode applies nothing').waitFor({ timeout: 60_000 });
    const drifted = await text(page);
    await page.close();

    expect(before).toMatch(/result\s+in-sync/);
    expect(drifted).toContain('observe mode');
    expect(drifted).toMatch(/result\s+drift/);
    // Said in the vocabulary: the rule was changed behind edgesync's back, which is drift, not pending.
    expect(drifted).toContain('1 drift: observe mode applies nothing');
    expect(drifted).toContain("drift the account changed behind edgesync's back");
    expect(drifted).toMatch(/ip_policy_rules\s+office-2\s+ipr_\w+\s+drift\s+update: description changed/);
    // Problems first in the table: the drifted rule above those in sync.
    expect(drifted.indexOf('office-2')).toBeLessThan(drifted.indexOf('office-0'));
    expect(complaints.lines).toEqual([]);
  });
});

describe('the status page holds no secret', () => {
  const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
  const API_KEY = 'edgesync_status_page_key_8c1e5b7a9d';
  const OIDC_SECRET = 'oidc-secret-status-page-4e7a1c9f03';
  let emulator: RunningEmulator;
  let dir: string;
  let daemon: DaemonProcess | undefined;

  beforeAll(async () => {
    assertBuilt();
    emulator = await startEmulator({
      apiKey: API_KEY,
      seed: await loadSeedFile(join(EXAMPLES, 'emulator-seed.yaml')),
    });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-status-page-secrets-'));
    await cp(join(EXAMPLES, 'manifests'), join(dir, 'manifests'), { recursive: true });
    const web = join(dir, 'manifests', 'https-edges.yaml');
    const text = await readFile(web, 'utf8');
    if (!text.includes('{ file: secrets/oidc-client-secret.txt }'))
      throw new Error('the example no longer reads its OIDC secret from a file');
    await writeFile(
      web,
      text.replace('{ file: secrets/oidc-client-secret.txt }', '{ env: OIDC_CLIENT_SECRET }'),
    );
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
  });
  afterAll(async () => {
    await emulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The page once `ready` holds on /status, from a daemon started with `environment`. */
  async function pageOnce(
    args: readonly string[],
    environment: Readonly<Record<string, string>>,
    ready: (status: Awaited<ReturnType<typeof getStatus>>) => boolean,
  ): Promise<string> {
    daemon = await startDaemon(emulator, ['manifests', ...args], dir, environment);
    const running = daemon;
    await eventually(async () => (ready(await getStatus(running)) ? true : undefined), 60_000);
    const page = await (await fetch(running.url)).text();
    await running.stop('SIGTERM');
    daemon = undefined;
    return page;
  }

  it('after an apply of an OIDC secret, with the secret rotated, and with a wrong API key', async () => {
    const applied = await pageOnce([], { OIDC_CLIENT_SECRET: OIDC_SECRET }, (status) =>
      ['applied', 'in-sync'].includes(status.last_reconcile?.result ?? ''),
    );
    const rotated = await pageOnce(
      ['--mode', 'observe'],
      { OIDC_CLIENT_SECRET: `${OIDC_SECRET}-rotated` },
      (status) => status.last_reconcile !== null,
    );
    const refused = await pageOnce(
      [],
      { OIDC_CLIENT_SECRET: OIDC_SECRET, EDGE_API_KEY: `${API_KEY}-wrong` },
      (status) => status.last_error !== null,
    );

    expect(applied).toMatch(/<h2>Plan \(reconcile \d+\)<\/h2>/);
    expect(refused).toMatch(/last error/);
    for (const page of [applied, rotated, refused]) {
      expect(page).not.toContain(API_KEY);
      expect(page).not.toContain(OIDC_SECRET);
    }
  });
});
