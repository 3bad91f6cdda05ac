import { X509Certificate } from 'node:crypto';
import type { EntryProblem, Kind, SourceResolver } from '../kind.js';
import { metadataKind } from '../metadata-kind.js';
import { checkCaPem } from './ca-pem-check.js';
import { canonicalPem } from './pem.js';
import { PROBE_CA_PEM } from './probe-ca.js';
import { CERTIFICATE_AUTHORITIES_SCHEMA } from './schema.js';

const canonical = (pem: unknown): unknown => (typeof pem === 'string' ? canonicalPem(pem) : pem);

/** Exactly one of `ca_pem` and `ca_pem_file` holds the certificate. */
function checkEntry(value: Readonly<Record<string, unknown>>): EntryProblem[] {
  const hasPem = value.ca_pem !== undefined;
  const hasFile = value.ca_pem_file !== undefined;
  if (hasPem !== hasFile) return [];
  return [
    {
      code: 'ca_pem_source',
      pointer: hasPem ? '/ca_pem_file' : '',
      message: hasPem
        ? 'set ca_pem or ca_pem_file, not both'
        : 'missing the certificate: set ca_pem or ca_pem_file',
    },
  ];
}

/** Reads the PEM from `ca_pem_file` or from `ca_pem` (a literal, `{ env }` or `{ file }`) into `ca_pem`, and checks it. */
async function resolveSources(spec: Record<string, unknown>, resolver: SourceResolver): Promise<void> {
  // Without exactly one source checkEntry has already reported the entry.
  if ((spec.ca_pem === undefined) === (spec.ca_pem_file === undefined)) return;
  const fromFile = typeof spec.ca_pem_file === 'string';
  const pointer = fromFile ? '/ca_pem_file' : '/ca_pem';
  const pem = fromFile
    ? await resolver.file(pointer, spec.ca_pem_file as string)
    : await resolver.secret(pointer, spec.ca_pem);
  // An unread { env } / { file } PEM has no text to check; ca_pem_file is a
  // certificate, not a secret, and is always read.
  const unread = !fromFile && typeof spec.ca_pem !== 'string' && !resolver.readsSecrets;
  if (pem !== undefined) {
    const invalid = unread ? undefined : checkCaPem(pointer, pem);
    if (invalid !== undefined) resolver.problem(invalid);
    spec.ca_pem = pem;
  }
  if (fromFile) {
    delete spec.ca_pem_file;
    resolver.moved('/ca_pem_file', '/ca_pem');
  }
}

/** A certificate's notAfter, milliseconds since the epoch; undefined when the PEM does not parse. */
function notAfter(spec: Readonly<Record<string, unknown>>): number | undefined {
  if (typeof spec.ca_pem !== 'string') return undefined;
  try {
    return Date.parse(new X509Certificate(spec.ca_pem).validTo);
  } catch {
    return undefined;
  }
}

const kind: Kind = metadataKind({
  name: 'certificate_authorities',
  title: 'certificate authority',
  idPrefix: 'ca_',
  idTitle: 'a CA ID',
  path: '/certificate_authorities',
  fields: [
    { name: 'description', onChange: 'update' },
    { name: 'metadata', onChange: 'update' },
    { name: 'ca_pem', onChange: 'replace', mayHoldSecrets: true },
  ],
  schema: CERTIFICATE_AUTHORITIES_SCHEMA,
  checkEntry,
  resolveSources,
  fromApi: (object) => ({
    spec: { ca_pem: canonical(object.ca_pem) },
    outputs: {
      subject_common_name: object.subject_common_name,
      not_before: object.not_before,
      not_after: object.not_after,
      key_usages: object.key_usages,
      extended_key_usages: object.extended_key_usages,
    },
  }),
  normalizeOwn: (spec) => ({ ca_pem: canonical(spec.ca_pem) }),
  probe: {
    list: { path: '/certificate_authorities', key: 'certificate_authorities' },
    object: {
      spec: (word) => ({ description: `edgesync doctor probe ${word}`, ca_pem: PROBE_CA_PEM }),
      update: (word) => ({ description: `edgesync doctor probe ${word} (updated)` }),
    },
  },
  emulator: async () => (await import('./emulator.js')).CERTIFICATE_AUTHORITIES_PART,
});

/** Edges that name a CA refuse client certificates once it expires. */
export const certificateAuthorities: Kind = {
  ...kind,
  expiry: {
    metric: 'certificate_authority',
    subject: 'the CA',
    advice: 'replace its PEM before edges refuse client certificates',
    notAfter,
  },
};
