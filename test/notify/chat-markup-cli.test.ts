import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { assertBuilt, type DaemonProcess, eventually, startDaemon } from '../watch/daemon-process.js';
import { notifications, startReceiver, type WebhookReceiver } from '../watch/webhook-receivers.js';

const POLICY = 'ipp_ChatMarkupTestPolicy0000001';
/** A value from a manifest that a chat would read as markup: pings, a labelled link, a masked link, emphasis. */
const HOSTILE = '<!channel> @everyone <https://evil.example|your bank> [label](https://evil.example) *now*';
/** A manifest's file name carries markup too. */
const FILE = '@here [x](https:evil) <!here>.yaml';

/**
 * `edgesync watch --notify-file` with one target of each format, as a
 * process, and a manifest whose invalid CIDR (quoted in the error) and file
 * name carry chat markup: each target gets the notification with every value
 * escaped for its format, Discord with no mention allowed, and `json` raw.
 */
describe('notifications carry no markup from outside (the daemon as a process)', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let daemon: DaemonProcess | undefined;
  const receivers: WebhookReceiver[] = [];

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY, description: 'chat markup' }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-chat-markup-'));
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('escapes every value for Slack, Discord and Teams, and leaves json raw', async () => {
    const formats = ['slack', 'discord', 'teams', 'json'] as const;
    for (const format of formats)
      receivers.push(await startReceiver('ok', `T0${format}/B0/t0ken${format}000000`));
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    await writeFile(
      join(manifests, FILE),
      `version: 1\nip_policy_rules:\n  office:\n    ip_policy_id: ${POLICY}\n    cidr: ${JSON.stringify(HOSTILE)}\n    action: allow\n`,
    );
    const notifyFile = join(dir, 'notify');
    await writeFile(
      notifyFile,
      `# one target of each format\n${formats.map((format, index) => `${format} ${receivers[index]?.url}`).join('\n')}\n`,
      { mode: 0o600 },
    );

    daemon = await startDaemon(
      emulator,
      [
        manifests,
        '--notify-file',
        notifyFile,
        '--interval',
        '1h',
        '--instance',
        'eu-west',
        '--status-page-url',
        'https://edgesync.example.com/eu-west/',
      ],
      dir,
    );
    const bodies = await eventually(() => {
      const got = receivers.map((receiver) => notifications(receiver)[0]);
      return got.every((body) => body !== undefined) ? (got as Record<string, unknown>[]) : undefined;
    }, 30_000);
    const [slack, discord, teams, json] = bodies as [
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
    ];

    for (const body of bodies) {
      expect(body).toMatchObject({
        event: 'manifests_invalid',
        severity: 'error',
        instance: 'eu-west',
        service: new URL(emulator.url).host,
        status_page_url: 'https://edgesync.example.com/eu-west/',
      });
    }
    expect(String(json.text)).toMatch(
      new RegExp(
        `^\\[error\\] edgesync ${json.owner}/eu-west on ${new URL(emulator.url).host}: manifests invalid`,
      ),
    );
    expect(String(slack.text)).toContain('&lt;!channel&gt; @everyone &lt;https://evil.example|your bank&gt;');
    expect(String(slack.text)).toContain('@here [x](https:evil) &lt;!here&gt;.yaml:5:');
    expect(String(slack.text)).not.toMatch(/[<>]/);
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    expect(String(discord.content)).toContain('\\@everyone');
    expect(String(discord.content)).toContain('\\[label\\]\\(https\\://evil.example\\)');
    expect(String(discord.content).replace(/\\./g, '')).not.toMatch(/[@<>[\]()*]/);
    expect(String(teams.text)).toContain('\\[label\\]\\(https://evil.example\\) \\*now\\*');
    expect(String(teams.text)).toContain('&lt;!channel&gt;');
    expect(
      String(teams.text)
        .replace(/\\./g, '')
        .replace(/&(?:lt|gt|amp);/g, ''),
    ).not.toMatch(/[<>[\]()*]/);
    expect(String(json.text)).toContain(HOSTILE);
    for (const body of bodies) {
      expect(body.errors).toEqual([expect.objectContaining({ message: expect.stringContaining(HOSTILE) })]);
    }
  });
});
