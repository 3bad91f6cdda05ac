import { EdgesyncError } from '../errors.js';
import { visibleText } from '../visible-text.js';
import { readDaemonStatus, STATUS_READ_TIMEOUT_MS, shownUrl, statusUrl } from './status-read.js';

/**
 * `apply --daemon-url URL`: the check that keeps the two flows apart. A
 * daemon in enforce mode applies every merged commit itself; a CI job that
 * also applies for the same owner races it, and whichever comes second finds
 * the account moved. So the apply is refused before anything is read
 * (exit 4) when the daemon there enforces this owner; a daemon that only
 * observes, or manages another owner, is no conflict. A daemon that cannot
 * be read fails the apply (exit 1): the check was asked for, and is not
 * skipped silently.
 */
export async function refuseWhenDaemonEnforces(
  daemonUrl: string,
  owner: string,
  read: {
    readonly signal: AbortSignal;
    /** apply's `--timeout`: the read's deadline when it is under STATUS_READ_TIMEOUT_MS, milliseconds. */
    readonly timeoutMs: number;
    /** The status token's `Authorization`, when the daemon asks for one. */
    readonly auth?: Readonly<Record<string, string>>;
  },
  note: (line: string) => void,
): Promise<void> {
  const url = statusUrl(daemonUrl);
  const daemon = shownUrl(url).replace(/\/status$/, '');
  const status = await readDaemonStatus(
    url,
    read.signal,
    Math.min(read.timeoutMs, STATUS_READ_TIMEOUT_MS),
    read.auth,
  );
  if (status.mode === 'enforce' && status.owner === owner) {
    throw new EdgesyncError(
      'daemon_enforces',
      `the daemon at ${daemon} enforces owner "${visibleText(owner)}" and applies every merged commit itself; a CI apply for the same owner would race it. Pick one flow: wait for the daemon instead (edgesync status --daemon-url ${daemon} --wait-commit SHA), or run the daemon with --mode observe (docs/operations.md, "Two flows")`,
    );
  }
  note(
    `the daemon at ${daemon} ${status.mode === 'observe' ? 'observes only' : 'enforces another owner'} (owner "${visibleText(status.owner)}", mode ${status.mode}): applying`,
  );
}
