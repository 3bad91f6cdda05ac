import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { EdgesyncError } from './errors.js';

/**
 * A file that holds a credential: a token (`--reconcile-token-file`, the
 * suspend, status and commit-status tokens), the plan key
 * (`--plan-key-file`), a `--notify-file` of webhook URLs with their tokens.
 */
export interface CredentialFile {
  /** The file's bytes, as they are (callers trim what their format allows). */
  readonly bytes: Buffer;
  /**
   * Who else may read it, when someone should not: `readable by every user
   * (mode 0666)`, or by a group the process is not in. Said once at start as
   * a warning; the file is still used.
   */
  readonly exposure: string | undefined;
}

/** Who the reading process is, for the group check. */
export interface ProcessIdentity {
  readonly gids: readonly number[];
}

/** The process's own group and its supplementary groups (Kubernetes adds `fsGroup` there); none off POSIX. */
export function processIdentity(): ProcessIdentity {
  const gids = [process.getgid?.(), ...(process.getgroups?.() ?? [])].filter(
    (gid): gid is number => gid !== undefined,
  );
  return { gids };
}

/** More than any token, key or file of webhook URLs is: a bound, so that a link to /dev/zero is not read forever. */
const MAX_CREDENTIAL_BYTES = 64 * 1024;

/**
 * Reads a credential file, following symbolic links (a Kubernetes Secret's
 * files are links into `..data`), and says who else can read it. The error
 * names the flag and the file, never a byte of what it holds. The mode is
 * read from the descriptor the bytes come from, so a link swapped between
 * the two is not a way around the check.
 */
export async function readCredentialFile(
  file: string,
  flag: string,
  identity: ProcessIdentity = processIdentity(),
): Promise<CredentialFile> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, 'r');
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error('not a regular file');
    const buffer = Buffer.alloc(MAX_CREDENTIAL_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_CREDENTIAL_BYTES) {
        throw new EdgesyncError(
          'invalid_option',
          `${flag}: ${file} is over ${MAX_CREDENTIAL_BYTES / 1024} KiB, more than any credential; not read`,
        );
      }
    }
    return { bytes: buffer.subarray(0, length), exposure: credentialExposure(stats, identity) };
  } catch (cause) {
    if (cause instanceof EdgesyncError) throw cause;
    const code = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
    throw new EdgesyncError('invalid_option', `${flag}: cannot read ${file} (${code})`, { cause });
  } finally {
    await handle?.close();
  }
}

/** A token read from its file, and who else can read that file. */
export interface TokenFile {
  readonly token: string;
  readonly exposure: string | undefined;
}

/**
 * The token a credential file holds (`--reconcile-token-file`, the suspend,
 * status and commit-status tokens): its text, trimmed, one word of at least
 * `minLength` characters; or an error naming the flag and the file and how
 * long what it found was, never the token. Each caller says at start what
 * `exposure` holds (`exposureWarning`), and may read the file again later
 * (a rotated Secret takes effect).
 */
export async function readTokenFile(file: string, flag: string, minLength = 1): Promise<TokenFile> {
  const { bytes, exposure } = await readCredentialFile(file, flag);
  const token = bytes.toString('utf8').trim();
  if (token.length < minLength || /\s/.test(token)) {
    throw new EdgesyncError(
      'invalid_option',
      `${flag}: ${file} must hold one token of at least ${minLength} characters without spaces (found ${token.length} characters)`,
    );
  }
  return { token, exposure };
}

/**
 * Who besides the file's owner and the process's groups may read it, or
 * undefined. Others' read bit: every user of the machine (or of the node,
 * in a container with a host path). The group's read bit, for a group the
 * process is not in: people the credential was not given to. A group the
 * process is in (a Secret mounted with `fsGroup` and mode 0440) is how it
 * is meant to be shared.
 */
export function credentialExposure(
  stats: Pick<Stats, 'mode' | 'gid'>,
  identity: ProcessIdentity,
): string | undefined {
  const mode = `mode 0${(stats.mode & 0o777).toString(8).padStart(3, '0')}`;
  if ((stats.mode & 0o004) !== 0) return `readable by every user (${mode})`;
  if ((stats.mode & 0o040) !== 0 && !identity.gids.includes(stats.gid))
    return `readable by group ${stats.gid}, which this process is not in (${mode})`;
  return undefined;
}

/** How to close an exposed credential file. */
export const CREDENTIAL_FIX =
  "chmod 0600 (or 0440 with the process's group, as the Helm chart mounts Secrets: defaultMode 0440 and fsGroup)";

/**
 * The warning a command gives at start for an exposed credential file (the
 * daemon logs the same as fields): what it is, who can read it, and how to
 * close it. The file is still used.
 */
export function exposureWarning(file: string, flag: string, exposure: string): string {
  return `${flag}: ${file} is ${exposure}, and it holds a credential: ${CREDENTIAL_FIX}`;
}
