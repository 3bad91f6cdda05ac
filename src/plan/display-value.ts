import { createHash, X509Certificate } from 'node:crypto';
import { visibleJson } from '../visible-text.js';
import { SENSITIVE_MASK } from './compare-fields.js';
import { isPendingId } from './pending-id.js';

/** Strings longer than this are summarized instead of printed. */
const LONG_STRING = 96;
const PEM_BEGIN = /-----BEGIN ([A-Z0-9 ]+)-----/g;

/**
 * One value as a person reads it in a plan: strings quoted, PEMs and long
 * strings summarized, IDs that a create will return named after the create.
 */
export function displayValue(value: unknown, sensitive = false): string {
  if (sensitive) return SENSITIVE_MASK;
  if (value === undefined) return 'null';
  return visibleJson(summarize(value));
}

function summarize(value: unknown): unknown {
  if (isPendingId(value)) return `(known after apply: ${value.$createdBy.replace(/^create:/, '')})`;
  if (typeof value === 'string') return summarizeString(value);
  if (Array.isArray(value)) return value.map(summarize);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, summarize(item)]));
  }
  return value;
}

function summarizeString(value: string): string {
  if (value.includes('-----BEGIN ')) return summarizePem(value);
  if (value.length <= LONG_STRING) return value;
  return `<${Buffer.byteLength(value)} bytes, sha256:${shortHash(value)}>`;
}

/** `<PEM, CN=corp-root.example.com, 1 certificate>`, or a hash when it does not parse. */
export function summarizePem(pem: string): string {
  const blocks = [...pem.matchAll(PEM_BEGIN)];
  const certificates = blocks.filter((match) => match[1] === 'CERTIFICATE').length;
  if (certificates === 0) return `<PEM, ${blocks.length} block(s), sha256:${shortHash(pem)}>`;
  const noun = certificates === 1 ? 'certificate' : 'certificates';
  try {
    const subject = new X509Certificate(pem).subject;
    const commonName = /(?:^|\n)CN=([^\n]*)/.exec(subject)?.[1];
    if (commonName !== undefined) return `<PEM, CN=${commonName}, ${certificates} ${noun}>`;
  } catch {
    // not parseable by node:crypto: fall back to the hash, which still tells two PEMs apart
  }
  return `<PEM, ${certificates} ${noun}, sha256:${shortHash(pem)}>`;
}

function shortHash(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 12);
}
