import { describe, expect, it } from 'vitest';
import { EdgesyncError } from '../../src/errors.js';
import { webhookBody } from '../../src/notify/notification.js';
import { parseWebhookFile, parseWebhookUrl, shownUrl } from '../../src/notify/webhook-target.js';

const TOKEN = 'T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX';

function errorOf(work: () => unknown): EdgesyncError {
  try {
    work();
  } catch (error) {
    if (error instanceof EdgesyncError) return error;
  }
  throw new Error('expected an EdgesyncError');
}

describe('webhook targets', () => {
  it('shows a URL as scheme://host/… only', () => {
    const target = parseWebhookUrl(`https://hooks.example.com:8443/services/${TOKEN}?token=abc`, '--notify');

    expect(target.shown).toBe('https://hooks.example.com:8443/…');
    expect(shownUrl(new URL('http://127.0.0.1/x'))).toBe('http://127.0.0.1/…');
  });

  it.each([
    ['not a URL', `hooks.example.com/services/${TOKEN}`],
    ['another scheme', `ftp://hooks.example.com/${TOKEN}`],
    ['credentials', `https://user:${TOKEN}@hooks.example.com/x`],
  ])('refuses %s without printing the URL', (_case, url) => {
    const error = errorOf(() => parseWebhookUrl(url, 'EDGESYNC_NOTIFY'));

    expect(error.code).toBe('invalid_option');
    expect(error.message).toMatch(/^EDGESYNC_NOTIFY: /);
    expect(error.message).not.toContain('XXXXXXXX');
  });

  it('reads a file of URLs, one a line, with comments and blank lines, and names the bad line', () => {
    const good = parseWebhookFile(`# team\nhttps://a.example/${TOKEN}\n\n  https://b.example/x  \n`, 'urls');
    const bad = errorOf(() => parseWebhookFile(`https://a.example/x\nnot-a-url-${TOKEN}\n`, 'urls'));

    expect(good.map((target) => target.shown)).toEqual(['https://a.example/…', 'https://b.example/…']);
    expect(bad.message).toMatch(/^urls:2: not a URL/);
    expect(bad.message).not.toContain('XXXXXXXX');
  });

  it('writes a body with a text that chat services show, and the errors with their places', () => {
    const body = webhookBody(
      {
        event: 'manifests_invalid',
        severity: 'error',
        identity: { owner: 'team-a', instance: null, service: 'api.edge.example.com' },
        mode: 'enforce',
        statusPageUrl: null,
        changes: [],
        changeCount: 0,
        commit: '0123456789abcdef0123',
        summary: 'manifests invalid: 1 error(s)',
        errors: [{ file: 'rules.yaml', line: 9, column: 5, message: 'cidr: not a CIDR' }],
        at: '2026-01-01T00:00:00.000Z',
      },
      'slack',
    );

    expect(body).toMatchObject({
      event: 'manifests_invalid',
      owner: 'team-a',
      commit: '0123456789abcdef0123',
      errors: [{ file: 'rules.yaml', line: 9, column: 5, location: 'rules.yaml:9:5' }],
      error_count: 1,
    });
    expect(body.text).toBe(
      '[error] edgesync team-a on api.edge.example.com: manifests invalid: 1 error(s)\ncommit 0123456789ab\n• rules.yaml:9:5: cidr: not a CIDR',
    );
  });
});
