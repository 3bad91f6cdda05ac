import { X509Certificate } from 'node:crypto';
import { invalidField } from '../../emulator/service-error.js';
import { formatTimestamp } from '../../emulator/timestamp.js';
import { keyUsagesFromDer } from './emulator-der-key-usage.js';

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

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;
const ONE_CERTIFICATE = /^-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----$/;

/**
 * `ca_pem` is exactly one PEM block of type CERTIFICATE, with nothing but
 * whitespace around it: a private key pasted in by mistake is refused, and
 * is never stored, echoed or named beyond its block type.
 */
function checkSingleCertificateBlock(pem: string): void {
  const types = [...pem.matchAll(PEM_BLOCK)].map((match) => match[1] as string);
  const others = types.filter((type) => type !== 'CERTIFICATE');
  if (others.length > 0) {
    throw invalidField('ca_pem', `must hold only a CERTIFICATE block (found a ${others[0]} block)`);
  }
  if (types.length !== 1) {
    throw invalidField('ca_pem', `must hold exactly one PEM certificate (found ${types.length})`);
  }
  if (!ONE_CERTIFICATE.test(pem.trim())) {
    throw invalidField('ca_pem', 'must hold the CERTIFICATE block alone, with no text before or after it');
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
    throw invalidField('ca_pem', 'is not a parsable X.509 certificate');
  }
  if (!certificate.ca)
    throw invalidField('ca_pem', 'is not a CA certificate (basicConstraints cA is not true)');
  let keyUsages: string[];
  try {
    keyUsages = keyUsagesFromDer(certificate.raw);
  } catch {
    throw invalidField('ca_pem', 'has a malformed keyUsage extension');
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
