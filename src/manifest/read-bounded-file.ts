import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

export type BoundedRead =
  | { readonly ok: true; readonly bytes: Buffer }
  /** Not a regular file once opened: a device, a FIFO, a socket or a directory, as `type` says. */
  | { readonly ok: false; readonly reason: 'not_regular'; readonly type: string }
  /** Holds more than `maxBytes`; only `maxBytes + 1` bytes were read to know it. */
  | { readonly ok: false; readonly reason: 'too_large' };

/**
 * Reads a regular file of at most `maxBytes` bytes, and never more than
 * `maxBytes + 1` bytes whatever the file is: `stat`'s size is 0 for
 * `/dev/zero` and stale for a file that grows, so the bound is on the read
 * itself. The file is opened non-blocking (a FIFO would otherwise block the
 * open until a writer appears) and without following a final symlink (the
 * caller passes the real path it checked); the type comes from the open
 * descriptor, so a swap between that check and the read cannot slip a device
 * in. Throws what the file system throws (missing, permission).
 */
export async function readBoundedFile(path: string, maxBytes: number): Promise<BoundedRead> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { ok: false, reason: 'not_regular', type: describeType(info) };
    // Sized from stat, grown when the file turns out longer, capped one past the bound.
    let buffer = Buffer.alloc(Math.min(info.size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        if (filled > maxBytes) return { ok: false, reason: 'too_large' };
        const grown = Buffer.alloc(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, filled);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) return { ok: true, bytes: buffer.subarray(0, filled) };
      filled += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

export function describeType(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return 'a regular file';
}
