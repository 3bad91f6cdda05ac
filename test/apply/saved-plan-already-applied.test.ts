import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { runEdgesyncInProcess } from '../support/edgesync-cli.js';
import { writes } from './cli-process.js';

const id = (prefix: string, name: string): string => `${prefix}${name.padEnd(27, '0')}`;
const POLICIES = { p1: id('ipp_', 'AppliedP1'), p2: id('ipp_', 'AppliedP2') } as const;
const TCP = id('edgtcp_', 'AppliedSsh');

const rule = (name: string, cidr: string, policy: keyof typeof POLICIES, action: string): string =>
  `  ${name}:\n    ip_policy_id: ${POLICIES[policy]}\n    cidr: ${cidr}\n    action: ${action}\n`;
/** Rules, and the TCP edge whose IP restriction lists both policies, so that their rules decide together. */
const rules = (...items: string[]): string =>
  `version: 1\nip_policy_rules:\n${items.join('')}tcp_edges:\n  ssh:\n    id: ${TCP}\n    ip_restriction:\n      ip_policies: [${POLICIES.p1}, ${POLICIES.p2}]\n`;
const address = (region: string): string =>
  `version: 1\nreserved_addrs:\n  bastion:\n    description: bastion\n    region: ${region}\n`;

/**
 * A plan applied in full, then applied again: every one of its actions is
 * found already applied, whatever writes one object several times or makes
 * and removes a temporary object on the way (parked rules and their guards,
 * replaces). In process: this is about what apply --plan decides.
 */
describe('apply --plan of a plan already applied in full', () => {
  let emulator: RunningEmulator | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await emulator?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it.each([
    {
      shape: 'an allow and a deny swap in each of two policies (two rules parked under guards)',
      before: rules(
        rule('r1', '10.1.2.0/24', 'p1', 'allow'),
        rule('r2', '10.1.3.0/24', 'p1', 'deny'),
        rule('r3', '10.1.3.0/24', 'p2', 'allow'),
        rule('r4', '10.1.2.0/24', 'p2', 'deny'),
        rule('r5', '10.0.0.0/8', 'p1', 'allow'),
      ),
      after: rules(
        rule('r1', '10.1.3.0/24', 'p1', 'allow'),
        rule('r2', '10.1.2.0/24', 'p1', 'deny'),
        rule('r3', '10.1.2.0/24', 'p2', 'allow'),
        rule('r4', '10.1.3.0/24', 'p2', 'deny'),
        rule('r5', '10.0.0.0/8', 'p1', 'allow'),
      ),
      parked: true,
    },
    {
      shape: 'two denies trade ranges (a target held by a temporary deny)',
      before: rules(rule('r1', '10.0.0.0/8', 'p1', 'deny'), rule('r4', '2001:db8:2::/48', 'p2', 'deny')),
      after: rules(rule('r1', '2001:db8:2::/48', 'p1', 'deny'), rule('r4', '10.0.0.0/8', 'p2', 'deny')),
      parked: true,
    },
    {
      shape: "a rule's action flips (replaced)",
      before: rules(rule('r1', '10.0.1.0/24', 'p1', 'allow')),
      after: rules(rule('r1', '10.0.1.0/24', 'p1', 'deny')),
      parked: false,
    },
    {
      shape: "an address's region changes (replaced)",
      before: address('eu'),
      after: address('us'),
      parked: false,
    },
  ])('$shape', async ({ before, after, parked }) => {
    const running = await startEmulator({
      seed: {
        ip_policies: [{ id: POLICIES.p1 }, { id: POLICIES.p2 }],
        tcp_edges: [{ id: TCP, hostports: ['1.tcp.eu.edge.example:22022'] }],
      },
    });
    emulator = running;
    const cwd = await mkdtemp(join(tmpdir(), 'edgesync-applied-'));
    dir = cwd;
    await mkdir(join(cwd, 'manifests'));
    const run = async (args: readonly string[]) => runEdgesyncInProcess(args, { emulator: running, cwd });
    await writeFile(join(cwd, 'manifests/all.yaml'), before);
    expect((await run(['apply', 'manifests', '--yes'])).code).toBe(0);
    await writeFile(join(cwd, 'manifests/all.yaml'), after);
    expect((await run(['plan', 'manifests', '--out', 'plan.json'])).code).toBe(0);
    const saved = JSON.parse(await readFile(join(cwd, 'plan.json'), 'utf8')) as {
      plan: { actions: { key: string }[] };
    };
    const first = await run(['apply', '--plan', 'plan.json', 'manifests', '--yes']);
    const sent = await writes(running);

    const again = await run(['apply', '--plan', 'plan.json', 'manifests', '--yes']);

    expect(saved.plan.actions.some((action) => action.key.includes('#parking-guard'))).toBe(parked);
    expect(first.code, first.stderr).toBe(0);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Already applied');
    expect(again.stderr).toContain(`${saved.plan.actions.length} action(s) already applied`);
    expect(await writes(running)).toBe(sent);
  });
});
