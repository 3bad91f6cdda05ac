import { fstatSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';

/**
 * stdout or stderr for the commands. On a pipe, `process.stdout` is a
 * net.Socket, and making it loads `net` and its modules: 5-10 ms of CPU of
 * every `edgesync validate` on Node 26 whose output a script or CI reads
 * (docs/performance.md). A pipe, a socket or a file gets a plain Writable that writes
 * each chunk at once with fs.writeSync, as Node's stdout does on Linux
 * (synchronously); anything else (a terminal) gets `process.stdout` itself
 * (colours, columns). Told apart by fstat: `tty.isatty` would load `net` too.
 *
 * A pipe set non-blocking by another process may refuse a write (EAGAIN):
 * what is left of that chunk, and every later one, goes through the
 * process's own stream, which waits for the pipe. Other errors (EPIPE when
 * the reader has gone) are the stream's 'error', as with process.stdout.
 */
export function outputStream<S extends Writable>(fd: number, processStream: () => S): S | Writable {
  if (!isPipeOrFile(fd)) return processStream();
  let fallback: S | undefined;
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (fallback !== undefined) {
        fallback.write(chunk, callback);
        return;
      }
      let offset = 0;
      try {
        while (offset < chunk.length) offset += writeSync(fd, chunk, offset, chunk.length - offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
          callback(error as Error);
          return;
        }
        fallback = processStream();
        fallback.write(chunk.subarray(offset), callback);
        return;
      }
      callback();
    },
  });
}

/** A pipe: a FIFO from a shell, a socket from Node's child_process and most process managers. */
function isPipeOrFile(fd: number): boolean {
  try {
    const stats = fstatSync(fd);
    return stats.isFIFO() || stats.isSocket() || stats.isFile();
  } catch {
    return false;
  }
}
