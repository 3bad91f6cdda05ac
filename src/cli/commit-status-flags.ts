import { type Command, Option } from 'commander';

/**
 * COMMIT_STATUS_PROVIDERS of src/git-host/commit-status-providers.ts,
 * written out so that registering a command loads no Git-host module; the
 * test of the flags checks that the two agree.
 */
export const COMMIT_STATUS_PROVIDER_CHOICES = ['github', 'gitlab', 'gitea'] as const;

/** The flags that name a Git host's commit statuses: `watch` posts them, `status --wait-commit` reads them. */
export interface CommitStatusFlags {
  readonly commitStatus?: (typeof COMMIT_STATUS_PROVIDER_CHOICES)[number];
  readonly commitStatusTokenFile?: string;
  readonly commitStatusApiUrl?: string;
  readonly commitStatusRepo?: string;
  readonly instance?: string;
}

/** Adds the commit-status flags; `role` words the help for the command that posts or the one that reads. */
export function addCommitStatusOptions(command: Command, role: 'post' | 'read'): Command {
  return command
    .addOption(
      new Option(
        '--commit-status <provider>',
        role === 'post'
          ? 'post each checked-out commit’s state (pending, success, failure, error) as a commit status edgesync/<owner>[/<instance>] on this Git host'
          : 'wait through this Git host’s commit status edgesync/<owner>[/<instance>] (posted by watch --commit-status) instead of the daemon’s /status',
      ).choices(COMMIT_STATUS_PROVIDER_CHOICES),
    )
    .option(
      '--commit-status-token-file <file>',
      role === 'post'
        ? 'the file holding the Git host token that posts statuses (re-read before each post: a mounted Secret rotates)'
        : 'the file holding a Git host token that can read commit statuses',
    )
    .option(
      '--commit-status-api-url <url>',
      'the Git host’s API (default https://api.github.com for github, https://gitlab.com/api/v4 for gitlab; GitHub Enterprise: https://HOST/api/v3; required for gitea: https://HOST/api/v1)',
    )
    .option(
      '--commit-status-repo <repo>',
      'the repository: OWNER/REPO (github, gitea) or a project path with its groups or a project ID (gitlab); default: from the checkout’s origin remote',
    )
    .option(
      '--instance <name>',
      'this daemon’s name among those of one owner (staging, eu-west): the status context becomes edgesync/<owner>/<name>, and notifications carry it',
    );
}
