import { KINDS } from '../../src/kinds/registry.js';
import type { Plan } from '../../src/plan/plan.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import {
  CORP_PEM,
  desiredState,
  entry,
  liveCa,
  liveEdge,
  liveRule,
  liveState,
  marked,
  OWNER,
  PARTNER_PEM,
  POLICY,
} from './builders.js';

/** A plan of every kind of change, with a secret, a PEM and an unowned object: what the renderers are tried on. */
export const SECRET = 'oidc-client-secret-do-not-print';

export function samplePlan(): Plan {
  const desired = desiredState([
    entry('ip_policy_rules', 'office', {
      cidr: '203.0.113.0/24',
      action: 'allow',
      ip_policy_id: POLICY,
      description: 'vpn',
    }),
    entry('certificate_authorities', 'corp', { ca_pem: CORP_PEM }),
    entry('https_edges', 'web', {
      hostports: ['web.example.com:443'],
      mutual_tls: { certificate_authorities: ['corp'] },
      routes: [
        {
          match_type: 'path_prefix',
          match: '/app',
          oidc: { issuer: 'https://id.example.com', client_id: 'app', client_secret: SECRET },
        },
      ],
    }),
  ]);
  const live = liveState([
    liveRule('ipr_1', {
      cidr: '203.0.113.0/24',
      action: 'allow',
      metadata: marked('office'),
      description: 'old',
    }),
    liveRule('ipr_gone', { cidr: '10.0.0.0/8', action: 'deny', metadata: marked('gone') }),
    liveRule('ipr_other', { cidr: '10.1.0.0/16', action: 'deny', metadata: 'not ours' }),
    liveCa('ca_1', { pem: PARTNER_PEM, metadata: marked('corp') }),
    liveEdge('edghts_1', {
      hostports: ['web.example.com:443'],
      metadata: marked('web'),
      caIds: ['ca_1'],
      routes: [{ id: 'edghtsrt_app', match_type: 'path_prefix', match: '/app', oidc: null }],
    }),
  ]);
  return planChanges(desired, live, { kinds: KINDS, owner: OWNER, force: true });
}
