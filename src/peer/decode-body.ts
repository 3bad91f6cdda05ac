import {
  brotliDecompressSync,
  constants,
  gunzipSync,
  inflateRawSync,
  inflateSync,
  type ZlibOptions,
} from 'node:zlib';

/** A compressed stream that ends without its trailer decodes as far as it goes, as fetch decoded it. */
const ZLIB_OPTIONS = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };

/** The `Accept-Encoding` a peer is sent when its body is decoded: brotli only over TLS, as browsers do. */
export function acceptedEncodings(secure: boolean): string {
  return secure ? 'br, gzip, deflate' : 'gzip, deflate';
}

/**
 * The body's bytes with their content codings undone, last applied first (an
 * unknown one leaves the bytes as they are). Each decoding stops, throwing
 * ERR_BUFFER_TOO_LARGE, as soon as its output passes `maxBytes`: a small gzip
 * body can inflate to gigabytes.
 */
export function decodeContent(bytes: Buffer, contentEncoding: string | undefined, maxBytes: number): Buffer {
  let decoded = bytes;
  const codings = contentEncoding === undefined ? [] : contentEncoding.toLowerCase().split(',').reverse();
  const options = { ...ZLIB_OPTIONS, maxOutputLength: maxBytes };
  for (const coding of codings) {
    const name = coding.trim();
    if (name === 'gzip' || name === 'x-gzip') decoded = gunzipSync(decoded, options);
    else if (name === 'deflate') decoded = inflateDeflate(decoded, options);
    else if (name === 'br') decoded = brotliDecompressSync(decoded, { maxOutputLength: maxBytes });
    else break;
  }
  return decoded;
}

/** UTF-8 without a byte order mark, invalid sequences replaced, as `Response.text()` decodes. */
export function bodyText(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** `deflate` is meant to be zlib-wrapped, but some servers send it raw: the first byte tells them apart. */
function inflateDeflate(bytes: Buffer, options: ZlibOptions): Buffer {
  const zlibWrapped = ((bytes[0] ?? 0) & 0x0f) === 0x08;
  return zlibWrapped ? inflateSync(bytes, options) : inflateRawSync(bytes, options);
}
