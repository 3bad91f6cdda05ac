import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';

const SECRET = 'XoXbWebhookTokenNeverPrinted77';

describe('watch --notify: a bad webhook URL is refused without printing it (the CLI as a process)', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-notify-flags-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    [
      '--notify, not a URL',
      ['--notify', `hooks.example.com/services/${SECRET}`],
      {},
      '--notify (value 1): not a URL',
    ],
    [
      'EDGESYNC_NOTIFY, credentials in the URL',
      [],
      { EDGESYNC_NOTIFY: `https://user:${SECRET}@hooks.example.com/x` },
      'credentials in a webhook URL are not sent (https://hooks.example.com/…)',
    ],
    [
      '--notify-file, another scheme',
      ['--notify-file', 'FILE'],
      {},
      'urls:2: expected an http(s) URL (found ftp://…)',
    ],
    [
      '--notify-events, an unknown event',
      [
        '--notify',
        `https://hooks.example.com/services/${SECRET}`,
        '--notify-events',
        'commit_live,comit_live',
      ],
      {},
      '--notify-events: unknown event "comit_live"; expected a comma-separated list of commit_live, ',
    ],
    [
      'EDGESYNC_NOTIFY_EVENTS with only a --notify-file',
      ['--notify-file', 'FILE'],
      { EDGESYNC_NOTIFY_EVENTS: 'commit_live' },
      'EDGESYNC_NOTIFY_EVENTS: chooses the events of the --notify URLs, and none is given; a --notify-file line chooses its own with events=EVENT,…',
    ],
  ])('%s', async (_case, args, env: Record<string, string>, message) => {
    await writeFile(join(dir, 'urls'), `# hooks\nftp://hooks.example.com/${SECRET}\n`);

    const run = await runEdgesyncProcess(
      ['watch', dir, '--emulator', ...args.map((arg) => (arg === 'FILE' ? 'urls' : arg))],
      { cwd: dir, env, limitMs: 30_000 },
    );

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  });
});
