import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/api/network-error.js';
import { classifyPeerFailure } from '../../src/peer/peer-failure.js';

/** An error as node:tls gives it, with its own properties. */
function socketError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

describe('classifyPeerFailure: a TLS handshake answered in plain HTTP', () => {
  it.each([
    [
      'Node 20: EPROTO with OpenSSL reason in the message',
      socketError(
        'write EPROTO 80BCCFB63F7F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:\n',
        { code: 'EPROTO', errno: -71, syscall: 'write' },
      ),
    ],
    [
      'later Nodes: the reason as the code',
      socketError('SSL routines:ssl3_get_record:wrong version number', {
        code: 'ERR_SSL_WRONG_VERSION_NUMBER',
        library: 'SSL routines',
        reason: 'wrong version number',
      }),
    ],
  ])('%s is plain_http, a failure before anything was sent', (_case, error) => {
    const classified = classifyPeerFailure(error);

    expect(classified.failure).toBe('plain_http');
    const wrapped = new NetworkError({
      method: 'GET',
      path: '/ip_policy_rules?limit=100',
      origin: 'https://127.0.0.1:8099',
      ...classified,
    });
    expect(wrapped.beforeSending).toBe(true);
    expect(wrapped.message).toBe(
      'cannot reach https://127.0.0.1:8099 (the server speaks plain HTTP, not TLS)',
    );
  });

  it('another EPROTO is not taken for plain HTTP', () => {
    const classified = classifyPeerFailure(
      socketError('write EPROTO 0A000410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure', {
        code: 'EPROTO',
      }),
    );

    expect(classified.failure).toBe('other');
  });
});
