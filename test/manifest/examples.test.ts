import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';

describe('examples/manifests', () => {
  it('validates and yields one entry per example resource', async () => {
    const result = await loadDesiredState(['examples/manifests'], { ...BUILT_IN_LOAD, env: {} });

    if (!result.ok) throw new Error(result.errors.map((e) => e.format()).join('\n'));
    const names = result.value.entries.map((entry) => `${entry.kind}.${entry.name}`);
    expect(names).toEqual([
      'ip_policy_rules.office-vpn',
      'ip_policy_rules.scanner-block',
      'reserved_addrs.ssh-bastion',
      'certificate_authorities.corp-root',
      'https_edges.web',
      'tcp_edges.ssh-edge',
      'tls_edges.db-edge',
    ]);
    expect(new Set(result.value.entries.map((entry) => entry.kind))).toEqual(
      new Set(KINDS.map((kind) => kind.name)),
    );
  });

  it('resolves file references and records where fields are written', async () => {
    const result = await loadDesiredState(['examples/manifests'], { ...BUILT_IN_LOAD, env: {} });

    if (!result.ok) throw new Error('examples should be valid');
    const ca = result.value.entries.find((entry) => entry.kind === 'certificate_authorities');
    expect(ca?.spec.ca_pem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(ca?.spec).not.toHaveProperty('ca_pem_file');
    const web = result.value.entries.find((entry) => entry.kind === 'https_edges');
    expect(web?.id).toBe('edghts_WebEdge00000000000000000001');
    const routes = web?.spec.routes as { oidc: { client_secret: string } }[];
    expect(routes[0]?.oidc.client_secret).toBe('dev-only-not-a-real-secret');
    expect(web?.fieldLocations['/routes/0/oidc/issuer']).toEqual({
      file: 'examples/manifests/https-edges.yaml',
      line: 24,
      column: 11,
    });
    expect(result.value.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
