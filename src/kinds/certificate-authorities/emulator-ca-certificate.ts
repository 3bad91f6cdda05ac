import { X509Certificate } from 'node:crypto';
import { formatTimestamp } from '../../emulator/timestamp.js';
import { keyUsagesFromDer } from './emulator-der-key-usage.js';
import {
  NOT_A_CA,
  NOT_A_CERTIFICATE_BLOCK,
  NOT_PEM,
  PEM_HEADERS,
  PEM_MISSING,
  SEVERAL_CERTIFICATES,
  UNPARSABLE_CERTIFICATE,
} from './emulator-errors.js';

const EXTENDED_KEY_USAGE_NAMES: Readonly<Record<string, string>> = {
  '2.5.29.37.0': 'any',
  '1.3.6.1.5.5.7.3.1': 'server_auth',
  '1.3.6.1.5.5.7.3.2': 'client_auth',
  '1.3.6.1.5.5.7.3.3': 'code_signing',
  '1.3.6.1.5.5.7.3.4': 'email_protection',
  '1.3.6.1.5.5.7.3.8': 'time_stamping',
  '1.3.6.1.5.5.7.3.9': 'ocsp_signing',
};

/** What the service derives from a CA's PEM (the output-only fields). */
export interface CaCertificateFacts {
  /** The PEM with exactly one trailing newline. */
  readonly ca_pem: string;
  readonly subject_common_name: string;
  readonly not_before: string;
  readonly not_after: string;
  readonly key_usages: string[];
  readonly extended_key_usages: string[];
}

function commonName(subject: string): string {
  for (const line of subject.split('\n')) if (line.startsWith('CN=')) return line.slice(3);
  return '';
}

/** Largest accepted `ca_pem`, in bytes. */
export const MAX_PEM_BYTES = 64 * 1024;

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
/** A header line inside a block (RFC 1421's `Proc-Type: 4,ENCRYPTED`). */
const PEM_HEADER_LINE = /^[A-Za-z0-9-]+:/m;

/** The subject's common name of a block that parses, for naming the certificates of a bundle. */
function subjectOf(block: string): string {
  try {
    return commonName(new X509Certificate(block).subject) || '(no common name)';
  } catch {
    return '(unparsable)';
  }
}

/**
 * `ca_pem` is exactly one PEM block of type CERTIFICATE, without headers,
 * with nothing but whitespace around it: a private key pasted in by mistake
 * is refused, and is never stored, echoed or named beyond its block type.
 */
function checkSingleCertificateBlock(pem: string): void {
  if (pem.trim() === '') throw PEM_MISSING.refuseField('ca_pem', 'is empty; send the CA certificate as PEM');
  const blocks = [...pem.matchAll(PEM_BLOCK)];
  const other = blocks.find((block) => block[1] !== 'CERTIFICATE');
  if (other !== undefined) {
    throw NOT_A_CERTIFICATE_BLOCK.refuseField(
      'ca_pem',
      `must hold only a CERTIFICATE block (found a ${other[1]} block)`,
    );
  }
  const [first] = blocks;
  if (first === undefined) {
    throw NOT_PEM.refuseField('ca_pem', 'is not PEM: no -----BEGIN CERTIFICATE----- block');
  }
  if (blocks.length > 1) {
    const subjects = blocks.map((block) => subjectOf(block[0])).join(', ');
    throw SEVERAL_CERTIFICATES.refuseField(
      'ca_pem',
      `must hold exactly one certificate (found ${blocks.length}: ${subjects})`,
    );
  }
  if (PEM_HEADER_LINE.test(first[2] ?? '')) {
    throw PEM_HEADERS.refuseField(
      'ca_pem',
      'has headers inside its CERTIFICATE block; send the block without them',
    );
  }
  const around = pem.slice(0, first.index) + pem.slice(first.index + first[0].length);
  if (around.trim() !== '') {
    throw NOT_PEM.refuseField(
      'ca_pem',
      'must hold the CERTIFICATE block alone, with no text before or after it',
    );
  }
}

/**
 * Parses `ca_pem` with node:crypto. Not exactly one certificate block, not
 * parsable, or not a CA (basicConstraints cA false) → 400 invalid_field `ca_pem`.
 */
export function parseCaPem(pem: string): CaCertificateFacts {
  checkSingleCertificateBlock(pem);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch {
    throw UNPARSABLE_CERTIFICATE.refuseField('ca_pem', 'is not a parsable X.509 certificate');
  }
  if (!certificate.ca)
    throw NOT_A_CA.refuseField('ca_pem', 'is not a CA certificate (basicConstraints cA is not true)');
  let keyUsages: string[];
  try {
    keyUsages = keyUsagesFromDer(certificate.raw);
  } catch {
    throw UNPARSABLE_CERTIFICATE.refuseField('ca_pem', 'has a malformed keyUsage extension');
  }
  // node:crypto's `keyUsage` holds the extended key usage OIDs, despite its name.
  const extendedOids = (certificate as { keyUsage?: string[] }).keyUsage ?? [];
  return {
    ca_pem: `${pem.trim()}\n`,
    subject_common_name: commonName(certificate.subject),
    not_before: formatTimestamp(Date.parse(certificate.validFrom)),
    not_after: formatTimestamp(Date.parse(certificate.validTo)),
    key_usages: keyUsages,
    extended_key_usages: extendedOids.map((oid) => EXTENDED_KEY_USAGE_NAMES[oid] ?? oid),
  };
}
