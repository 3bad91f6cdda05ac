import { describe, expect, it } from 'vitest';
import { renderRequests } from '../../src/apply/render-requests.js';
import { maskPointers } from '../../src/plan/mask-pointers.js';
import { handPlan, plainAction } from './hand-plan.js';

describe('renderRequests', () => {
  it('shows method, path and body with secrets masked and pending IDs named', () => {
    const put = {
      ...plainAction(
        'put-module:https_edges.web.routes[edghtsrt_1].oidc',
        'https_edges',
        'web',
        'put-module',
        {
          method: 'PUT',
          path: '/edges/https/edghts_1/routes/edghtsrt_1/oidc',
          body: { issuer: 'https://id.example.com', client_id: 'app', client_secret: 'hunter2-secret' },
        },
        ['create:certificate_authorities.corp'],
      ),
      sensitivePaths: ['/client_secret'],
    };
    const create = plainAction('create:https_edges.api', 'https_edges', 'api', 'create', {
      method: 'POST',
      path: '/edges/https',
      body: {
        mutual_tls: { certificate_authority_ids: [{ $createdBy: 'create:certificate_authorities.corp' }] },
      },
    });

    const text = renderRequests(handPlan([create, put]));

    expect(text).not.toContain('hunter2-secret');
    expect(text).toContain('"client_secret": "(sensitive)"');
    expect(text).toContain('PUT /edges/https/edghts_1/routes/edghtsrt_1/oidc');
    expect(text).toContain('"(id from create:certificate_authorities.corp)"');
    expect(text).toContain('(after create:certificate_authorities.corp)');
  });

  it('says so when there is nothing to send', () => {
    expect(renderRequests(handPlan([]))).toBe('No requests would be sent.\n');
  });

  it.each([
    ['/client_secret', { client_secret: 's', a: 1 }, { client_secret: '(sensitive)', a: 1 }],
    [
      '/provider/github/client_secret',
      { provider: { github: { client_secret: 's' } } },
      { provider: { github: { client_secret: '(sensitive)' } } },
    ],
    ['/routes/0/secret', { routes: [{ secret: 's' }] }, { routes: [{ secret: '(sensitive)' }] }],
    ['/a~1b', { 'a/b': 's' }, { 'a/b': '(sensitive)' }],
    ['/absent', { a: 1 }, { a: 1 }],
  ])('masks %s', (pointer, body, expected) => {
    expect(maskPointers(body, [pointer])).toEqual(expected);
  });
});
