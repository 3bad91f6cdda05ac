import { describe, expect, it } from 'vitest';
import { SCRUBBED, SecretScrubber } from '../../src/api/secret-scrubber.js';
import { apiErrorFrom } from '../../src/api/service-answer.js';

describe('SecretScrubber', () => {
  it.each([
    ['as is', (secret: string) => `msg ${secret} end`],
    ['inside a JSON string', (secret: string) => `body ${JSON.stringify({ client_secret: secret })}`],
    [
      'inside a JSON string in a JSON string',
      (secret: string) => JSON.stringify(JSON.stringify({ client_secret: secret })),
    ],
    ['percent-encoded', (secret: string) => `/cb?secret=${encodeURIComponent(secret)}`],
  ])('scrubs a secret written %s', (_form, write) => {
    const secret = 'a"b\\c/d e+f.*';
    const scrubber = new SecretScrubber();
    scrubber.add(secret);

    const scrubbed = scrubber.scrub(write(secret));

    expect(scrubbed).toContain(SCRUBBED);
    for (const form of [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]) {
      expect(scrubbed).not.toContain(form);
    }
  });

  it('scrubs a secret that contains another whole, and values added after the first scrub', () => {
    const scrubber = new SecretScrubber();
    scrubber.add('abc');
    expect(scrubber.scrub('x abcdef y')).toBe(`x ${SCRUBBED}def y`);

    scrubber.add('abcdef');
    scrubber.add('');

    expect(scrubber.scrub('x abcdef y abc')).toBe(`x ${SCRUBBED} y ${SCRUBBED}`);
    expect(scrubber.size).toBe(2);
  });
});

describe('apiErrorFrom: what the service says is scrubbed', () => {
  const scrubber = new SecretScrubber();
  scrubber.add('s3cret');
  const redact = (text: string) => scrubber.scrub(text);

  it('scrubs the message, the error code, and the keys and values of the details', () => {
    const body = JSON.stringify({
      error_code: 'bad s3cret',
      msg: 'echo {"client_secret":"s3cret"}',
      details: { field: 's3cret', nested: ['s3cret'], s3cret: 1 },
    });

    const error = apiErrorFrom('PUT', '/x', 400, body, redact);

    expect(JSON.stringify({ ...error, message: error.message })).not.toContain('s3cret');
    expect(error.msg).toBe(`echo {"client_secret":"${SCRUBBED}"}`);
  });

  it('scrubs a text body before cutting it, so no part of a secret across the cut is left', () => {
    const text = `${'x'.repeat(197)}s3cret${'y'.repeat(50)}`;

    const error = apiErrorFrom('GET', '/x', 502, text, redact);

    expect(error.msg).toBe(`${'x'.repeat(197)}${SCRUBBED.slice(0, 3)}`);
  });
});
