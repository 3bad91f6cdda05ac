import { X509Certificate } from 'node:crypto';
import type { EntryProblem } from '../kind.js';

/** The service's limit on a PEM, in bytes. */
export const MAX_PEM_BYTES = 64 * 1024;

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;
/** A key in any PEM flavour (PKCS#8, RSA, EC, encrypted), even with its END line missing. */
const PRIVATE_KEY_MARK = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

/**
 * A CA for client certificates, as the service takes it: at most 64 KB,
 * exactly one PEM block, of type CERTIFICATE, and nothing else but
 * whitespace; the certificate parses and has basicConstraints CA:TRUE.
 * Undefined when it is one; the problem (at `pointer`) otherwise.
 *
 * Messages name what was found but never quote the PEM: a file that holds a
 * private key must not leak it into a terminal, a CI log or a PR comment.
 */
export function checkCaPem(pointer: string, pem: string): EntryProblem | undefined {
  const invalid = (message: string, cause?: unknown): EntryProblem => ({
    code: 'invalid_pem',
    pointer,
    message,
    ...(cause === undefined ? {} : { cause }),
  });
  if (PRIVATE_KEY_MARK.test(pem)) {
    return invalid(
      'holds a private key; a CA needs only its certificate. Remove the key from this value or file (it was not sent anywhere), and treat it as exposed if the file was shared',
    );
  }
  const bytes = Buffer.byteLength(pem, 'utf8');
  if (bytes > MAX_PEM_BYTES) return invalid(`is ${bytes} bytes; a PEM is at most ${MAX_PEM_BYTES} (64 KB)`);
  const blocks = [...pem.matchAll(PEM_BLOCK)];
  const [block] = blocks;
  if (block === undefined || blocks.length > 1 || block[1] !== 'CERTIFICATE') {
    if (blocks.length > 1) {
      const types = blocks.map((found) => found[1]).join(', ');
      return invalid(`holds ${blocks.length} PEM blocks (${types}); expected exactly one CERTIFICATE block`);
    }
    if (block !== undefined) return invalid(`holds a ${block[1]} block; expected one CERTIFICATE block`);
    return invalid('expected a PEM certificate ("-----BEGIN CERTIFICATE-----" …) that node:crypto can parse');
  }
  const before = pem.slice(0, block.index).trim() !== '';
  const after = pem.slice(block.index + block[0].length).trim() !== '';
  if (before || after) {
    const where = before && after ? 'before and after' : before ? 'before' : 'after';
    return invalid(`has text ${where} the CERTIFICATE block; expected the block alone`);
  }
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch (error) {
    return invalid(
      'expected a PEM certificate ("-----BEGIN CERTIFICATE-----" …) that node:crypto can parse',
      error,
    );
  }
  if (!certificate.ca) {
    return invalid(
      `the certificate (subject ${certificate.subject.replaceAll('\n', ', ')}) is not a CA (basicConstraints CA:TRUE is missing)`,
    );
  }
  return undefined;
}
