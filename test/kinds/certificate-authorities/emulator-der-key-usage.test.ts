import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  decodeKeyUsageBits,
  keyUsagesFromDer,
} from '../../../src/kinds/certificate-authorities/emulator-der-key-usage.js';

describe('keyUsage from DER', () => {
  it.each([
    ['corp-root.pem', ['digital_signature', 'cert_sign', 'crl_sign']],
    ['partner-ca.pem', ['digital_signature', 'cert_sign', 'crl_sign']],
    ['leaf-not-ca.pem', ['digital_signature']],
  ])('reads %s', (file, expected) => {
    const der = new X509Certificate(readFileSync(`test/fixtures/certs/${file}`)).raw;

    expect(keyUsagesFromDer(der)).toEqual(expected);
  });

  it.each([
    [[0x07, 0x80], ['digital_signature']],
    [
      [0x01, 0x06],
      ['cert_sign', 'crl_sign'],
    ],
    [
      [0x07, 0x80, 0x80],
      ['digital_signature', 'decipher_only'],
    ],
    [
      [0x00, 0xff, 0x80],
      [
        'digital_signature',
        'content_commitment',
        'key_encipherment',
        'data_encipherment',
        'key_agreement',
        'cert_sign',
        'crl_sign',
        'encipher_only',
        'decipher_only',
      ],
    ],
    [[0x02, 0x06], ['cert_sign']],
  ])('decodes bit string %j', (bytes, expected) => {
    expect(decodeKeyUsageBits(Uint8Array.from(bytes))).toEqual(expected);
  });

  it('rejects bytes that are not a certificate', () => {
    expect(() => keyUsagesFromDer(Uint8Array.from([0x02, 0x01, 0x00]))).toThrow('not a certificate');
  });
});
