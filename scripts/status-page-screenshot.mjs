#!/usr/bin/env node
// Makes docs/status-page.png, the status page docs/operations.md shows: a real
// `edgesync watch` against the emulator, over a git checkout of manifests,
// after an apply, a change made behind its back (corrected) and a broken file,
// photographed by Debian's Chromium (`apt-get install chromium`) through
// playwright-core. Run from the repository: `node scripts/status-page-screenshot.mjs`.
// EDGESYNC_CHROMIUM names another browser binary.
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { buildIfStale } from './build-if-stale.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUTPUT = join(ROOT, 'docs', 'status-page.png');
const BROWSER = process.env.EDGESYNC_CHROMIUM ?? '/usr/bin/chromium';
const POLICY = 'ipp_StatusPagePolicy00000000001';

buildIfStale(ROOT, { quiet: true });
const { startEmulator } = await import(join(ROOT, 'dist', 'src', 'emulator', 'server.js'));

/** A rules manifest: `count` office rules, the first described as `first`. */
function rules(count, first = 'head office') {
  const entries = Array.from(
    { length: count },
    (_, index) =>
      `  office-${index}:\n    ip_policy_id: ${POLICY}\n    cidr: 198.51.100.${index * 8}/29\n    action: allow\n    description: ${index === 0 ? first : `branch ${index}`}\n`,
  );
  return `version: 1\nip_policy_rules:\n${entries.join('')}`;
}

async function until(what, check, limitMs = 60_000) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs / 1000} s`);
    await sleep(200);
  }
}

const dir = await mkdtemp(join(tmpdir(), 'edgesync-status-page-'));
const emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY, description: 'offices' }] } });
let child;
let browser;
try {
  const manifests = join(dir, 'manifests');
  await mkdir(manifests);
  await writeFile(join(manifests, 'offices.yaml'), rules(6));
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.name=docs', '-c', 'user.email=docs@example.com', ...args], {
      cwd: dir,
      stdio: 'ignore',
    });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'offices');

  child = spawn(
    process.execPath,
    [
      join(ROOT, 'dist', 'cli', 'main.js'),
      'watch',
      'manifests',
      '--owner',
      'platform-prod',
      '--api-url',
      emulator.url,
      '--listen',
      '127.0.0.1:0',
      '--interval',
      '5s',
      '--settle',
      '0s',
      '--log-level',
      'warn',
    ],
    {
      cwd: dir,
      env: { ...process.env, EDGE_API_KEY: emulator.apiKey },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let stdout = '';
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk.toString();
      const match = /^listening on (http:\/\/\S+)\n/.exec(stdout);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`edgesync watch exited with ${code}`)));
  });
  const status = async () => (await fetch(`${url}/status`)).json();
  await until('the first apply', async () => (await status()).last_reconcile?.result === 'applied');

  // A change behind the daemon's back: the next background read finds it and the daemon reverts it.
  const headers = { Authorization: `Bearer ${emulator.apiKey}`, 'Service-Version': '2' };
  const listed = await (await fetch(`${emulator.url}/ip_policy_rules?limit=100`, { headers })).json();
  const target = listed.ip_policy_rules.find((rule) => rule.description === 'branch 2');
  await fetch(`${emulator.url}/ip_policy_rules/${target.id}`, {
    method: 'PATCH',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ description: 'edited in the console' }),
  });
  await until(
    'the drift corrected',
    async () =>
      (await (await fetch(`${emulator.url}/ip_policy_rules/${target.id}`, { headers })).json())
        .description === 'branch 2',
  );

  // A broken file: the page names it by file:line while the last valid state stays enforced.
  await writeFile(
    join(manifests, 'partners.yaml'),
    `version: 1\nip_policy_rules:\n  partner-a:\n    ip_policy_id: ${POLICY}\n    cidr: 203.0.113.300/32\n    action: allow\n`,
  );
  await until('the manifest error', async () => (await status()).manifests_valid === false);

  browser = await chromium.launch({ executablePath: BROWSER });
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(url);
  await page.screenshot({ path: OUTPUT, fullPage: true });
  process.stdout.write(`wrote ${OUTPUT}\n`);
} finally {
  await browser?.close();
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
}
