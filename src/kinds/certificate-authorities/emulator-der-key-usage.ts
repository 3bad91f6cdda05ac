/**
 * Reads the keyUsage extension (OID 2.5.29.15) out of a certificate's DER,
 * because node:crypto does not expose it (its `keyUsage` property returns the
 * extended key usage OIDs). Only the few DER rules X.509 needs: definite
 * lengths, the TBSCertificate's explicit [3] extensions.
 */
interface Tlv {
  readonly tag: number;
  /** Offset of the first content byte. */
  readonly start: number;
  /** Offset just past the content. */
  readonly end: number;
}

function readTlv(der: Uint8Array, offset: number): Tlv {
  const tag = der[offset];
  let lengthByte = der[offset + 1];
  if (tag === undefined || lengthByte === undefined) throw new Error('truncated DER');
  let start = offset + 2;
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count === 0 || count > 4) throw new Error('unsupported DER length');
    length = 0;
    for (let i = 0; i < count; i += 1) {
      lengthByte = der[start + i];
      if (lengthByte === undefined) throw new Error('truncated DER');
      length = length * 256 + lengthByte;
    }
    start += count;
  }
  const end = start + length;
  if (end > der.length) throw new Error('truncated DER');
  return { tag, start, end };
}

function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const result: Tlv[] = [];
  let offset = parent.start;
  while (offset < parent.end) {
    const child = readTlv(der, offset);
    result.push(child);
    offset = child.end;
  }
  return result;
}

/** Bit names in KeyUsage order (RFC 5280 4.2.1.3), as the service family names them. */
export const KEY_USAGE_NAMES = [
  'digital_signature',
  'content_commitment',
  'key_encipherment',
  'data_encipherment',
  'key_agreement',
  'cert_sign',
  'crl_sign',
  'encipher_only',
  'decipher_only',
] as const;

const KEY_USAGE_OID = Uint8Array.from([0x55, 0x1d, 0x0f]);

const TAG_SEQUENCE = 0x30;
const TAG_OID = 0x06;
const TAG_BOOLEAN = 0x01;
const TAG_OCTET_STRING = 0x04;
const TAG_BIT_STRING = 0x03;
const TAG_EXTENSIONS = 0xa3;

function sameBytes(der: Uint8Array, tlv: Tlv, expected: Uint8Array): boolean {
  if (tlv.end - tlv.start !== expected.length) return false;
  return expected.every((byte, i) => der[tlv.start + i] === byte);
}

/** Decodes a KeyUsage BIT STRING's content bytes into names. */
export function decodeKeyUsageBits(bitString: Uint8Array): string[] {
  const unused = bitString[0] ?? 0;
  const bits = bitString.subarray(1);
  const names: string[] = [];
  KEY_USAGE_NAMES.forEach((name, index) => {
    const byte = bits[index >> 3];
    if (byte === undefined) return;
    const isLastByte = index >> 3 === bits.length - 1;
    if (isLastByte && 7 - (index & 7) < unused) return;
    if (byte & (0x80 >> (index & 7))) names.push(name);
  });
  return names;
}

/** The key usages of a DER certificate; [] when it has no keyUsage extension. */
export function keyUsagesFromDer(der: Uint8Array): string[] {
  const certificate = readTlv(der, 0);
  if (certificate.tag !== TAG_SEQUENCE) throw new Error('not a certificate');
  const tbs = children(der, certificate)[0];
  if (!tbs || tbs.tag !== TAG_SEQUENCE) throw new Error('not a certificate');
  const extensionsWrapper = children(der, tbs).find((child) => child.tag === TAG_EXTENSIONS);
  if (!extensionsWrapper) return [];
  const extensions = children(der, extensionsWrapper)[0];
  if (!extensions || extensions.tag !== TAG_SEQUENCE) return [];
  for (const extension of children(der, extensions)) {
    const parts = children(der, extension);
    const oid = parts[0];
    if (!oid || oid.tag !== TAG_OID || !sameBytes(der, oid, KEY_USAGE_OID)) continue;
    const value = parts.find((part, i) => i > 0 && part.tag !== TAG_BOOLEAN);
    if (!value || value.tag !== TAG_OCTET_STRING) return [];
    const bitString = readTlv(der, value.start);
    if (bitString.tag !== TAG_BIT_STRING) return [];
    return decodeKeyUsageBits(der.subarray(bitString.start, bitString.end));
  }
  return [];
}
