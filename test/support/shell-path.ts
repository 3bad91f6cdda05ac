import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where every POSIX system keeps its shell and utilities (sh, grep, sleep, stty, mkfifo). */
const SYSTEM_DIRECTORIES = ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'];

/**
 * PATH for a shell or utility a test starts: the test's own PATH, then the
 * system's directories, as a reader's login shell has them. npm test needs
 * nothing on its PATH but Node and npm; the shell scripts it runs (the docs'
 * blocks, a pseudo-terminal's `stty`) still find the system's utilities.
 */
export function shellPath(path: string = process.env.PATH ?? ''): string {
  const given = path.split(delimiter).filter((directory) => directory !== '');
  return [...given, ...SYSTEM_DIRECTORIES.filter((directory) => !given.includes(directory))].join(delimiter);
}

/** The first `name` on `path` that exists, or `name` itself (to fail with ENOENT naming it). */
export function findOnPath(name: string, path: string): string {
  for (const directory of path.split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, name);
    if (existsSync(candidate)) return candidate;
  }
  return name;
}
