import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSeededEmulator } from './bench-emulator.js';
import { REPO_ROOT } from './repo-root.js';
import { type AccountSize, buildSyntheticAccount, rulesOnly, writeManifests } from './synthetic-account.js';

/**
 * Whether two builds of edgesync plan alike: each scenario's manifests are
 * planned against one emulator account by `node dist/cli/main.js plan
 * --format json` of this build and of another (`--base DIR`, a checkout with
 * its own `npm run build`), and the two outputs and exit codes are compared
 * byte for byte. A reshaping of the planner that changes no behaviour must
 * print `identical` for every scenario.
 *
 *   node dist/bench/plan-identity.js --base ../other-checkout [--only NAME,...]
 */

const OWNER = 'identity';

function everyKind(count: number): AccountSize {
  return {
    rules: count,
    reservedAddrs: count,
    certificateAuthorities: count,
    httpsEdges: count,
    tcpEdges: count,
    tlsEdges: count,
  };
}

interface Scenario {
  readonly name: string;
  /** What the emulator holds. */
  readonly live: { readonly size: AccountSize; readonly managed: boolean; readonly overlapping: boolean };
  /** What the manifests say. */
  readonly desired: { readonly size: AccountSize; readonly overlapping: boolean };
  readonly flags?: readonly string[];
}

const SCENARIOS: readonly Scenario[] = [
  {
    name: 'every kind x50: changed and pruned, --force',
    live: { size: everyKind(50), managed: true, overlapping: false },
    desired: { size: everyKind(45), overlapping: true },
    flags: ['--force'],
  },
  {
    // Creates of every metadata kind, module writes on every edge.
    name: 'every kind x3000: fresh account',
    live: { size: everyKind(3000), managed: false, overlapping: false },
    desired: { size: everyKind(3000), overlapping: false },
  },
  {
    name: 'every kind x3000: converged',
    live: { size: everyKind(3000), managed: true, overlapping: false },
    desired: { size: everyKind(3000), overlapping: false },
  },
  {
    // Other CIDRs (overlapping, both families: access ordering and unique keys at work) and
    // fewer entries than the account holds (prunes), past --max-destroy.
    name: 'every kind x3000: changed and pruned',
    live: { size: everyKind(3000), managed: true, overlapping: false },
    desired: { size: everyKind(2900), overlapping: true },
  },
  {
    name: 'every kind x3000: changed and pruned, --force',
    live: { size: everyKind(3000), managed: true, overlapping: false },
    desired: { size: everyKind(2900), overlapping: true },
    flags: ['--force'],
  },
  {
    name: 'every kind x3000: changed, --target ip_policy_rules --exclude tls_edges',
    live: { size: everyKind(3000), managed: true, overlapping: false },
    desired: { size: everyKind(3000), overlapping: true },
    flags: ['--force', '--target', 'ip_policy_rules', '--target', 'https_edges', '--exclude', 'tls_edges'],
  },
  {
    name: '100,000 rules: converged',
    live: { size: rulesOnly(100_000), managed: true, overlapping: false },
    desired: { size: rulesOnly(100_000), overlapping: false },
  },
  {
    name: '100,000 rules: fresh account',
    live: { size: rulesOnly(100_000), managed: false, overlapping: false },
    desired: { size: rulesOnly(100_000), overlapping: false },
  },
  {
    name: '100,000 rules: every CIDR changed',
    live: { size: rulesOnly(100_000), managed: true, overlapping: false },
    desired: { size: rulesOnly(100_000), overlapping: true },
    flags: ['--force'],
  },
];

interface Output {
  readonly code: number | null;
  readonly sha256: string;
  readonly bytes: number;
  readonly text: Buffer;
}

function planWith(root: string, manifests: string, url: string, apiKey: string, flags: readonly string[]) {
  return new Promise<Output>((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        join(root, 'dist', 'cli', 'main.js'),
        'plan',
        '--format',
        'json',
        '--owner',
        OWNER,
        '--api-url',
        url,
        '--rate-limit',
        '1000000/1s',
        ...flags,
        manifests,
      ],
      { env: { ...process.env, EDGE_API_KEY: apiKey }, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
    });
    child.on('error', fail);
    child.on('close', (code) => {
      const text = withoutDuration(Buffer.concat(chunks));
      done({ code, sha256: createHash('sha256').update(text).digest('hex'), bytes: text.length, text });
    });
  });
}

/**
 * The output with the digits of the read's `duration_ms` (in `stats`, near
 * the end) blanked: how long the live read took is the one thing two runs
 * of one plan do not share.
 */
function withoutDuration(text: Buffer): Buffer {
  const label = Buffer.from('"duration_ms": ');
  const at = text.lastIndexOf(label);
  if (at === -1) return text;
  let end = at + label.length;
  while (end < text.length && (text[end] as number) >= 0x30 && (text[end] as number) <= 0x39) end += 1;
  return Buffer.concat([text.subarray(0, at + label.length), Buffer.from('0'), text.subarray(end)]);
}

async function runScenario(scenario: Scenario, base: string, dir: string): Promise<boolean> {
  const live = await buildSyntheticAccount({
    owner: OWNER,
    size: scenario.live.size,
    seedManaged: scenario.live.managed,
    overlappingCidrs: scenario.live.overlapping,
  });
  const desired = await buildSyntheticAccount({
    owner: OWNER,
    size: scenario.desired.size,
    overlappingCidrs: scenario.desired.overlapping,
  });
  const manifests = join(dir, scenario.name.replace(/[^a-z0-9]+/gi, '-'));
  await writeManifests(desired, manifests);
  const emulator = await startSeededEmulator(live.seed);
  try {
    const flags = scenario.flags ?? [];
    const before = await planWith(base, manifests, emulator.url, emulator.apiKey, flags);
    const after = await planWith(REPO_ROOT, manifests, emulator.url, emulator.apiKey, flags);
    const same = before.code === after.code && before.sha256 === after.sha256;
    const shown = (output: Output): string =>
      `exit ${output.code}, ${output.bytes} bytes, sha256 ${output.sha256.slice(0, 16)}`;
    if (!same) {
      let at = 0;
      while (at < before.text.length && before.text[at] === after.text[at]) at += 1;
      const around = (text: Buffer): string => text.subarray(Math.max(0, at - 200), at + 200).toString();
      console.log(
        `first difference at byte ${at}:\n--- base\n${around(before.text)}\n--- this build\n${around(after.text)}`,
      );
    }
    console.log(
      same
        ? `identical  ${scenario.name}: ${shown(after)}`
        : `DIFFERENT  ${scenario.name}: base ${shown(before)}; this build ${shown(after)}`,
    );
    return same;
  } finally {
    await emulator.close();
    await rm(manifests, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const baseAt = args.indexOf('--base');
  if (baseAt === -1 || args[baseAt + 1] === undefined) {
    throw new Error('usage: node dist/bench/plan-identity.js --base DIR [--only NAME,...]');
  }
  const base = resolve(args[baseAt + 1] as string);
  const onlyAt = args.indexOf('--only');
  const only = onlyAt === -1 ? undefined : (args[onlyAt + 1] ?? '').split(',');
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-plan-identity-'));
  let different = 0;
  try {
    for (const scenario of SCENARIOS) {
      if (only !== undefined && !only.some((part) => scenario.name.includes(part))) continue;
      if (!(await runScenario(scenario, base, dir))) different += 1;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  process.exitCode = different === 0 ? 0 : 1;
}

await main();
