import { X509Certificate } from 'node:crypto';
import type { EntryProblem } from './kind.js';

/**
 * A CA for client certificates: one PEM certificate with basicConstraints
 * CA:TRUE. Undefined when it is one; the problem (at `pointer`) otherwise.
 * Messages never quote the PEM.
 */
export function checkCaPem(pointer: string, pem: string): EntryProblem | undefined {
  let certificate: X509Certificate;
  try {
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate block');
    certificate = new X509Certificate(pem);
  } catch (error) {
    return {
      code: 'invalid_pem',
      pointer,
      message: 'expected a PEM certificate ("-----BEGIN CERTIFICATE-----" …) that node:crypto can parse',
      cause: error,
    };
  }
  if (!certificate.ca) {
    return {
      code: 'invalid_pem',
      pointer,
      message: `the certificate (subject ${certificate.subject.replaceAll('\n', ', ')}) is not a CA (basicConstraints CA:TRUE is missing)`,
    };
  }
  return undefined;
}
