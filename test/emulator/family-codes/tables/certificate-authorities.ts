import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CERTIFICATE_AUTHORITIES_SECTION } from '../../../../src/kinds/certificate-authorities/emulator-errors.js';
import type { FamilyTable } from '../family-table.js';

const certificate = (name: string): string =>
  readFileSync(new URL(`../../../fixtures/certs/${name}.pem`, import.meta.url), 'utf8');
const CORP_ROOT = certificate('corp-root');
const PARTNER_CA = certificate('partner-ca');
const LEAF = certificate('leaf-not-ca');
const PRIVATE_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
/** The corporate root's block with an RFC 1421 header line inside it. */
const WITH_HEADERS = CORP_ROOT.replace(
  '-----BEGIN CERTIFICATE-----\n',
  '-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n',
);
const UNPARSABLE = '-----BEGIN CERTIFICATE-----\nAAAAAAAA\n-----END CERTIFICATE-----\n';
const TOO_LARGE = `${CORP_ROOT}${' '.repeat(64 * 1024)}\n`;
const CREATE = { method: 'POST', path: '/certificate_authorities' };

/** A CA whose PEM comes from a file beside the manifest (`ca.pem`), with `lines` added to the entry. */
const fromFile = (pem: string, lines = ''): { yaml: string; files: Record<string, string> } => ({
  yaml: `version: 1\ncertificate_authorities:\n  corp:\n    ca_pem_file: ca.pem\n${lines}`,
  files: { 'ca.pem': pem },
});
const PEM_FILE = '4:5 certificate_authorities.corp.ca_pem_file';

export const CERTIFICATE_AUTHORITIES_TABLE: FamilyTable = {
  section: CERTIFICATE_AUTHORITIES_SECTION,
  seed: {},
  cases: [
    {
      code: 1919,
      name: 'an empty ca_pem',
      request: { ...CREATE, body: { ca_pem: '' } },
      field: 'ca_pem',
      validate: { ...fromFile(''), expected: `invalid_pem ${PEM_FILE}` },
    },
    {
      code: 1920,
      name: 'a ca_pem that is no PEM',
      request: { ...CREATE, body: { ca_pem: 'corp root, see the wiki' } },
      field: 'ca_pem',
      validate: { ...fromFile('corp root, see the wiki\n'), expected: `invalid_pem ${PEM_FILE}` },
    },
    {
      code: 1910,
      name: 'a CERTIFICATE block with headers',
      request: { ...CREATE, body: { ca_pem: WITH_HEADERS } },
      field: 'ca_pem',
      validate: { ...fromFile(WITH_HEADERS), expected: `invalid_pem ${PEM_FILE}` },
    },
    {
      code: 1911,
      name: 'a private key block',
      request: { ...CREATE, body: { ca_pem: PRIVATE_KEY } },
      field: 'ca_pem',
      validate: { ...fromFile(PRIVATE_KEY), expected: `invalid_pem ${PEM_FILE}` },
    },
    {
      code: 1912,
      name: 'two certificates',
      request: { ...CREATE, body: { ca_pem: `${CORP_ROOT}${PARTNER_CA}` } },
      field: 'ca_pem',
      validate: { ...fromFile(`${CORP_ROOT}${PARTNER_CA}`), expected: `invalid_pem ${PEM_FILE}` },
    },
    {
      code: 1913,
      name: 'a certificate that is no CA',
      request: { ...CREATE, body: { ca_pem: LEAF } },
      field: 'ca_pem',
      validate: { ...fromFile(LEAF), expected: `invalid_pem ${PEM_FILE}` },
    },
    {
      code: 1900,
      name: 'a CERTIFICATE block that does not parse',
      request: { ...CREATE, body: { ca_pem: UNPARSABLE } },
      field: 'ca_pem',
      validate: { ...fromFile(UNPARSABLE), expected: `invalid_pem ${PEM_FILE}` },
    },
    {
      code: 1921,
      name: 'a ca_pem over 64 KB',
      request: { ...CREATE, body: { ca_pem: TOO_LARGE } },
      field: 'ca_pem',
      validate: { ...fromFile(TOO_LARGE), expected: `invalid_pem ${PEM_FILE}` },
    },
    {
      code: 1914,
      name: 'a description of 256 bytes',
      request: { ...CREATE, body: { ca_pem: CORP_ROOT, description: 'é'.repeat(128) } },
      field: 'description',
      validate: {
        ...fromFile(CORP_ROOT, `    description: "${'é'.repeat(128)}"\n`),
        expected: 'too_long 5:5 certificate_authorities.corp.description',
      },
    },
    {
      code: 1916,
      name: 'a description of 256 bytes (ca-length-errors=1916)',
      variants: { 'ca-length-errors': '1916' },
      request: { ...CREATE, body: { ca_pem: CORP_ROOT, description: 'é'.repeat(128) } },
      field: 'description',
    },
    {
      code: 1915,
      name: 'metadata over 4096 bytes',
      request: { ...CREATE, body: { ca_pem: CORP_ROOT, metadata: 'm'.repeat(4097) } },
      field: 'metadata',
      validate: {
        ...fromFile(CORP_ROOT, `    metadata: { notes: "${'m'.repeat(4097)}" }\n`),
        expected: 'too_long 5:5 certificate_authorities.corp.metadata',
      },
    },
    {
      code: 1917,
      name: 'metadata over 4096 bytes (ca-length-errors=1916)',
      variants: { 'ca-length-errors': '1916' },
      request: { ...CREATE, body: { ca_pem: CORP_ROOT, metadata: 'm'.repeat(4097) } },
      field: 'metadata',
    },
  ],
};
