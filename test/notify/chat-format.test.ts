import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHAT_ESCAPES, clipText, NOTIFY_FORMATS } from '../../src/notify/chat-format.js';
import { type Notification, webhookBody } from '../../src/notify/notification.js';
import { propertyRuns } from '../support/property-runs.js';

/** What people put in a value to make a chat ping, link or shout: mentions, masked links, emphasis. */
const HOSTILE = [
  '@everyone',
  '@here',
  '<!channel>',
  '<!here|here>',
  '<@U024BE7LH>',
  '<#C024BE7LH|general>',
  '<https://evil.example|your bank>',
  '[label](https://evil.example)',
  '*bold* _it_ ~gone~ `code` ||spoiler|| # heading > quote',
  '<t:1700000000:R> :joy:',
];

/** Slack's and Teams' entities back to characters. */
function entitiesUndone(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

/** A backslash escape is the character itself, as markdown renders it. */
function backslashesUndone(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

/** What each chat shows of the escaped text: the characters, with no markup read from them. */
const SHOWN = {
  slack: entitiesUndone,
  discord: backslashesUndone,
  teams: (text: string) => entitiesUndone(backslashesUndone(text)),
  json: (text: string) => text,
} as const;

/** What must not remain in an escaped text as markup: outside a backslash escape or an entity. */
const MARKUP = {
  slack: /[<>]/,
  discord: /[*_~`|>#[\]()<@:\\]/,
  teams: /[*_~`[\]()#<>\\]/,
} as const;

function notification(message: string, file = 'rules.yaml'): Notification {
  return {
    event: 'manifests_invalid',
    severity: 'error',
    identity: { owner: 'team-a', instance: null, service: 'api.edge.example.com' },
    mode: 'enforce',
    statusPageUrl: null,
    // A drifted value is the service's: outside text like the rest.
    changes: [
      {
        address: 'ip_policy_rules.office',
        op: 'update',
        fields: [{ path: 'description', sensitive: false, before: message, after: 'office' }],
      },
    ],
    changeCount: 1,
    commit: null,
    summary: `manifests invalid: 1 error(s) in ${message}`,
    errors: [{ file, line: 5, column: 5, message: `cidr: not a CIDR (found "${message}")` }],
    at: '2026-01-01T00:00:00.000Z',
  };
}

describe('notification text escaped for the chat that renders it', () => {
  it.each(['slack', 'discord', 'teams'] as const)(
    '%s: no value can carry markup, and the chat shows each value as it was',
    (format) => {
      fc.assert(
        fc.property(
          fc.oneof(fc.constantFrom(...HOSTILE), fc.string(), fc.string({ unit: 'grapheme' })),
          (value) => {
            const escaped = CHAT_ESCAPES[format](value);
            const bare = escaped.replace(/\\./g, '').replace(/&(?:lt|gt|amp);/g, '');

            expect(bare).not.toMatch(MARKUP[format]);
            expect(SHOWN[format](escaped)).toBe(value);
          },
        ),
        { numRuns: propertyRuns({ small: 100, large: 1000 }) },
      );
    },
  );

  it('slack: mentions and labelled links become text, in every field Slack renders', () => {
    const body = webhookBody(notification(HOSTILE.join(' '), '<!here> [x](https:evil).yaml'), 'slack');

    expect(body.text).not.toMatch(/[<>]/);
    expect(body.text).toContain('&lt;!channel&gt;');
    expect(body.text).toContain('&lt;https://evil.example|your bank&gt;');
    expect(body.text).toContain('&lt;!here&gt; [x](https:evil).yaml:5:5');
    expect(body).not.toHaveProperty('content');
  });

  it('discord: markdown escaped in content, and no mention may ping', () => {
    const body = webhookBody(notification(HOSTILE.join(' ')), 'discord');

    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(body.content).toContain('\\@everyone');
    expect(body.content).toContain('\\[label\\]\\(https\\://evil.example\\)');
    expect(body.content).toContain('\\<\\@U024BE7LH\\>');
    expect(body).not.toHaveProperty('text');
  });

  it('teams: link and emphasis characters escaped, HTML as entities', () => {
    const body = webhookBody(notification(HOSTILE.join(' ')), 'teams');

    expect(body.text).toContain('\\[label\\]\\(https://evil.example\\)');
    expect(body.text).toContain('\\*bold\\* \\_it\\_');
    expect(body.text).toContain('&lt;!channel&gt;');
  });

  it('json: the text and the machine fields hold the values as they are', () => {
    const value = HOSTILE.join(' ');
    const body = webhookBody(notification(value), 'json');

    expect(body.text).toContain(value);
    expect(body.errors).toEqual([
      expect.objectContaining({ message: `cidr: not a CIDR (found "${value}")` }),
    ]);
  });

  it.each(NOTIFY_FORMATS)('%s: the machine fields are the same raw values whatever the format', (format) => {
    const value = HOSTILE.join(' ');

    expect(webhookBody(notification(value), format)).toMatchObject({
      summary: `manifests invalid: 1 error(s) in ${value}`,
      errors: [{ file: 'rules.yaml', message: `cidr: not a CIDR (found "${value}")` }],
    });
  });

  it('discord: content stays within the 2,000 characters Discord takes, saying that more was cut', () => {
    const long = Array.from({ length: 300 }, (_, index) => `line ${index}`).join('\n');

    const clipped = clipText(long, 'discord');

    expect(clipped.length).toBeLessThanOrEqual(2000);
    expect(clipped.endsWith('\n…')).toBe(true);
    expect(clipText('short', 'discord')).toBe('short');
  });
});
