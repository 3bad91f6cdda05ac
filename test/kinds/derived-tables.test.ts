import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED_PATHS } from '../../src/cli/logger.js';
import { idPrefixOf, idPrefixTitles, withArticle } from '../../src/kinds/id-titles.js';
import { KINDS } from '../../src/kinds/registry.js';
import { secretFieldNames, unquotedFieldNames, visitSpec } from '../../src/kinds/visit-spec.js';
import { isSensitivePath } from '../../src/manifest/field-path.js';

/** What validation never quotes, as the loader derives it from the registry. */
const UNQUOTED = unquotedFieldNames(KINDS);

const secretRules = KINDS.flatMap((kind) =>
  [kind.fields, ...kind.modules.map((module) => module.fields)]
    .flat()
    .filter((rule) => rule.sensitive === true)
    .map((rule) => [kind.name, rule.name] as const),
);

function logLine(record: Record<string, unknown>): string {
  let out = '';
  const destination = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  });
  createLogger({ destination }).info(record, 'planned');
  return out;
}

describe('tables derived from the kinds', () => {
  it('has secret fields to derive from', () => {
    expect(secretRules.length).toBeGreaterThan(0);
  });

  it.each(secretRules)('%s.%s is never quoted by validation', (_kind, field) => {
    expect(isSensitivePath(['spec', field], UNQUOTED)).toBe(true);
  });

  it.each(secretRules)('%s.%s is redacted by the logger, nested up to three levels', (_kind, field) => {
    const line = logLine({
      [field]: 'top-s3cret',
      change: { after: { module: { [field]: 'deep-s3cret' } } },
    });

    expect(REDACTED_PATHS).toContain(field);
    expect(line).not.toContain('s3cret');
    expect(line).toContain('(sensitive)');
  });

  it('never quotes a field that may hold a secret (a PEM), though the plan shows it', () => {
    const mayHold = KINDS.flatMap((kind) => kind.fields.filter((rule) => rule.mayHoldSecrets === true));

    expect(mayHold.map((rule) => rule.name)).toContain('ca_pem');
    for (const rule of mayHold) expect(isSensitivePath([rule.name], UNQUOTED)).toBe(true);
    expect(secretFieldNames(KINDS).has('ca_pem')).toBe(false);
  });

  /** Every ID prefix of the spec, for every resource a manifest may name by ID. */
  const SPEC_ID_PREFIXES = {
    ip_policy_rule: 'ipr_',
    ip_policy: 'ipp_',
    reserved_addr: 'ra_',
    certificate_authority: 'ca_',
    endpoint_configuration: 'ec_',
    https_edge: 'edghts_',
    https_edge_route: 'edghtsrt_',
    tcp_edge: 'edgtcp_',
    tls_edge: 'edgtls_',
  };

  it("knows exactly the spec's ID prefixes from the kinds", () => {
    expect([...idPrefixTitles(KINDS).keys()].sort()).toEqual(Object.values(SPEC_ID_PREFIXES).sort());
  });

  it.each(Object.entries(SPEC_ID_PREFIXES))('names the ID prefix of %s (%s)', (_resource, prefix) => {
    const titles = idPrefixTitles(KINDS);

    expect(titles.get(prefix)).toMatch(/^an? .+ ID$/);
    expect(idPrefixOf(`${prefix}Abc`, titles)).toBe(prefix);
  });

  it.each([
    ['IP policy rule', 'an IP policy rule'],
    ['HTTPS edge', 'an HTTPS edge'],
    ['TCP edge', 'a TCP edge'],
    ['reserved address', 'a reserved address'],
    ['endpoint configuration', 'an endpoint configuration'],
    ['certificate authority', 'a certificate authority'],
  ])('writes "%s" with its article', (title, expected) => {
    expect(withArticle(title)).toBe(expected);
  });

  it('visits fields, resource modules and every route module with their pointers', () => {
    const https = KINDS.find((kind) => kind.name === 'https_edges');
    if (https === undefined) throw new Error('no https_edges');
    const pointers: string[] = [];

    visitSpec(https, { mutual_tls: { enabled: true }, routes: [{ oidc: {} }, {}] }, ({ pointer, record }) => {
      if (record !== undefined) pointers.push(pointer);
    });

    expect(pointers).toEqual(['', '/mutual_tls', '/routes/0/oidc']);
  });
});
