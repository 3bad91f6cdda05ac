/**
 * A commit's state as edgesync reports it, in GitHub's words; each
 * provider's own words are in `commit-status-providers.ts`.
 * - `pending`: being reconciled, held, suspended;
 * - `success`: live and in sync (itself, or through a newer commit that contains it);
 * - `failure`: it cannot go live as it is (invalid, refused, failed, skipped);
 * - `error`: it never will on its own: superseded before it went live.
 */
export const COMMIT_STATES = ['pending', 'success', 'failure', 'error'] as const;
export type CommitState = (typeof COMMIT_STATES)[number];

/** States after which the daemon posts nothing more for the commit. */
export function isFinalState(state: CommitState): boolean {
  return state !== 'pending';
}

/** One status of one commit: what the daemon posts and what `status --wait-commit` reads back. */
export interface CommitStatus {
  readonly state: CommitState;
  /** At most DESCRIPTION_MAX characters (`fitDescription`). */
  readonly description: string;
}

/** GitHub's limit on a status's description, in characters; the smallest of the three hosts'. */
export const DESCRIPTION_MAX = 140;

/** `text` cut to DESCRIPTION_MAX characters (code points, never half a pair), with `…` where it was cut. */
export function fitDescription(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = [...flat];
  return chars.length <= DESCRIPTION_MAX ? flat : `${chars.slice(0, DESCRIPTION_MAX - 1).join('')}…`;
}

/**
 * The status's name on the commit (GitHub's `context`, GitLab's `name`):
 * `edgesync/<owner>`, or `edgesync/<owner>/<instance>` so that a staging and
 * a production daemon of one owner on one repository stay apart.
 */
export function statusContext(owner: string, instance: string | undefined): string {
  return instance === undefined || instance === '' ? `edgesync/${owner}` : `edgesync/${owner}/${instance}`;
}

/** The first 12 digits of a commit: what a description names. */
export function shortCommit(commit: string): string {
  return commit.slice(0, 12);
}

const SUPERSEDED = /^superseded by ([0-9a-f]{7,64})\b/;
const LIVE_THROUGH = /^live through ([0-9a-f]{7,64})\b/;
/** The description of a commit held back because the daemon is suspended; the waiter stops on it. */
export const SUSPENDED_DESCRIPTION = 'suspended: edgesync resume lets the daemon apply again';

/** A commit replaced before it went live, by a newer one the daemon cannot tell contains it. */
export function supersededStatus(newer: string): CommitStatus {
  return {
    state: 'error',
    description: fitDescription(
      `superseded by ${shortCommit(newer)} before it went live; the daemon cannot tell whether that commit contains it`,
    ),
  };
}

/** A commit replaced before it went live, by a newer one that contains it and is live. */
export function liveThroughStatus(newer: string): CommitStatus {
  return { state: 'success', description: `live through ${shortCommit(newer)}` };
}

/** The newer commit a `superseded by …` description names, or null for any other description. */
export function supersedingCommit(description: string): string | null {
  return SUPERSEDED.exec(description)?.[1] ?? null;
}

/** The newer commit a `live through …` description names, or null. */
export function liveThroughCommit(description: string): string | null {
  return LIVE_THROUGH.exec(description)?.[1] ?? null;
}

/** Whether a pending status says the daemon is suspended: waiting longer does not help. */
export function saysSuspended(status: CommitStatus): boolean {
  return status.state === 'pending' && status.description.startsWith('suspended');
}
