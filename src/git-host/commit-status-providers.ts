import { isRecord } from '../json-value.js';
import { type CommitState, type CommitStatus, fitDescription } from './commit-status-text.js';
import type { RemoteLocation } from './origin-remote.js';

export const COMMIT_STATUS_PROVIDERS = ['github', 'gitlab', 'gitea'] as const;
export type CommitStatusProviderName = (typeof COMMIT_STATUS_PROVIDERS)[number];

/** One request to a Git host's API: a path under the API's URL (query included) and a JSON body. */
export interface HostRequest {
  readonly method: 'GET' | 'POST';
  /** Starts with `/`; appended to the API URL's path (`https://HOST/api/v3` + `/repos/…`). */
  readonly path: string;
  readonly body?: Readonly<Record<string, string>>;
}

/** The newest status of one context on one commit, as the host reports it. */
export interface FoundStatus extends CommitStatus {
  /** The host's own word for the state (`running`, `canceled`), for messages. */
  readonly hostState: string;
  readonly targetUrl: string | null;
}

/** One page of a commit's statuses: the context's newest status if on it, and whether another page may hold it. */
export interface StatusPage {
  readonly found: FoundStatus | null;
  readonly more: boolean;
}

/**
 * What differs between the three hosts: where a status is posted and read,
 * how the token is sent, the words for each state, how ancestry is asked.
 * Pure: requests out, parsed answers in; `git-host-client.ts` sends them.
 */
export interface CommitStatusProvider {
  readonly name: CommitStatusProviderName;
  /** `GitHub`, for messages. */
  readonly title: string;
  /** The API's URL when `--commit-status-api-url` is not given; null: the flag is required. */
  readonly defaultApiUrl: string | null;
  /** The headers that carry the token, and any the API requires. */
  authHeaders(token: string): Record<string, string>;
  /** What `--commit-status-repo` must look like, or null when `repo` does; the message says what was expected. */
  repoProblem(repo: string): string | null;
  /** The repository as this host names it, from the checkout's `origin` remote. */
  repoFromRemote(remote: RemoteLocation): string;
  postStatus(
    repo: string,
    commit: string,
    context: string,
    status: CommitStatus,
    targetUrl: string | null,
  ): HostRequest;
  /**
   * A non-2xx answer to a post that still means the commit holds that state
   * (GitLab answers 400 to a state the commit already has).
   */
  postAlreadyDone(status: number, body: unknown): boolean;
  readStatuses(repo: string, commit: string, page: number): HostRequest;
  parseStatuses(body: unknown, context: string, page: number): StatusPage;
  /** A request whose answer says whether `newer` contains `older`. */
  ancestry(repo: string, older: string, newer: string): HostRequest;
  /** true: `newer` is `older` or a descendant; false: it is not; null: the answer does not tell. */
  parseAncestry(body: unknown, older: string, newer: string): boolean | null;
}

/** Commits of `newer`'s history Gitea is asked for: a superseded commit is rarely further back. */
const GITEA_LOG_LIMIT = 50;
/** Statuses read per page. */
const PER_PAGE = 100;
/** The version of GitHub's REST API the requests are written for. */
export const GITHUB_API_VERSION = '2022-11-28';

const OWNER_REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
/** GitLab's namespace/project path, nested groups allowed, or a numeric project ID. */
const GITLAB_PROJECT = /^(?:\d+|[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+)$/;

function ownerRepoPath(repo: string): string {
  return repo
    .split('/')
    .map((part) => encodeURIComponent(part))
    .join('/');
}

/** The last two segments: `owner/repo`, also for a host served under a path (`https://host/gitea/owner/repo`). */
function lastTwo(remote: RemoteLocation): string {
  return remote.path.split('/').slice(-2).join('/');
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** GitHub's and Gitea's words are ours; Gitea's `warning` is not one edgesync posts, and reads as a failure. */
function githubState(word: string): CommitState | null {
  if (word === 'pending' || word === 'success' || word === 'failure' || word === 'error') return word;
  return word === 'warning' ? 'failure' : null;
}

/** A combined status (GitHub, Gitea): `statuses` holds the newest status of each context. */
function parseCombined(body: unknown, context: string, page: number): StatusPage {
  if (!isRecord(body) || !Array.isArray(body.statuses)) return { found: null, more: false };
  for (const item of body.statuses) {
    if (!isRecord(item) || item.context !== context) continue;
    const hostState = text(item.state) ?? '';
    const state = githubState(hostState);
    if (state === null) continue;
    return {
      found: {
        state,
        hostState,
        description: fitDescription(text(item.description) ?? ''),
        targetUrl: text(item.target_url),
      },
      more: false,
    };
  }
  const total = typeof body.total_count === 'number' ? body.total_count : body.statuses.length;
  return { found: null, more: body.statuses.length === PER_PAGE && total > page * PER_PAGE };
}

const GITHUB: CommitStatusProvider = {
  name: 'github',
  title: 'GitHub',
  defaultApiUrl: 'https://api.github.com',
  authHeaders: (token) => ({
    authorization: `Bearer ${token}`,
    accept: 'application/vnd.github+json',
    'x-github-api-version': GITHUB_API_VERSION,
  }),
  repoProblem: (repo) =>
    OWNER_REPO.test(repo) ? null : `expected OWNER/REPO, e.g. acme/infra (found "${repo}")`,
  repoFromRemote: lastTwo,
  postStatus: (repo, commit, context, status, targetUrl) => ({
    method: 'POST',
    path: `/repos/${ownerRepoPath(repo)}/statuses/${commit}`,
    body: {
      state: status.state,
      description: status.description,
      context,
      ...(targetUrl === null ? {} : { target_url: targetUrl }),
    },
  }),
  postAlreadyDone: () => false,
  readStatuses: (repo, commit, page) => ({
    method: 'GET',
    path: `/repos/${ownerRepoPath(repo)}/commits/${commit}/status?per_page=${PER_PAGE}&page=${page}`,
  }),
  parseStatuses: parseCombined,
  ancestry: (repo, older, newer) => ({
    method: 'GET',
    path: `/repos/${ownerRepoPath(repo)}/compare/${older}...${newer}?per_page=1`,
  }),
  parseAncestry: (body) => {
    const status = isRecord(body) ? body.status : undefined;
    if (status === 'identical' || status === 'ahead') return true;
    if (status === 'behind' || status === 'diverged') return false;
    return null;
  },
};

/** GitLab's words: a commit being reconciled is `running`; `failed` and `canceled` end it. */
const GITLAB_POSTED: Readonly<Record<CommitState, string>> = {
  pending: 'running',
  success: 'success',
  failure: 'failed',
  error: 'canceled',
};

function gitlabState(word: string): CommitState | null {
  if (word === 'success') return 'success';
  if (word === 'failed') return 'failure';
  if (word === 'canceled' || word === 'skipped') return 'error';
  if (
    ['pending', 'running', 'created', 'manual', 'scheduled', 'preparing', 'waiting_for_resource'].includes(
      word,
    )
  ) {
    return 'pending';
  }
  return null;
}

function gitlabProject(repo: string): string {
  return encodeURIComponent(repo);
}

const GITLAB: CommitStatusProvider = {
  name: 'gitlab',
  title: 'GitLab',
  defaultApiUrl: 'https://gitlab.com/api/v4',
  authHeaders: (token) => ({ 'private-token': token }),
  repoProblem: (repo) =>
    GITLAB_PROJECT.test(repo)
      ? null
      : `expected a project path with its groups (group/subgroup/project) or a project ID (found "${repo}")`,
  repoFromRemote: (remote) => remote.path,
  postStatus: (repo, commit, context, status, targetUrl) => ({
    method: 'POST',
    path: `/projects/${gitlabProject(repo)}/statuses/${commit}`,
    body: {
      state: GITLAB_POSTED[status.state],
      name: context,
      description: status.description,
      ...(targetUrl === null ? {} : { target_url: targetUrl }),
    },
  }),
  // GitLab refuses a transition to the state a commit's status already has ("Cannot transition status via :run from :running").
  postAlreadyDone: (status, body) =>
    status === 400 && isRecord(body) && /cannot transition status/i.test(JSON.stringify(body.message ?? '')),
  readStatuses: (repo, commit, page) => ({
    method: 'GET',
    path: `/projects/${gitlabProject(repo)}/repository/commits/${commit}/statuses?per_page=${PER_PAGE}&page=${page}`,
  }),
  parseStatuses: (body, context) => {
    if (!Array.isArray(body)) return { found: null, more: false };
    // Newest first by id: GitLab lists the latest status of each name, one per ref and pipeline.
    const mine = body
      .filter((item): item is Record<string, unknown> => isRecord(item) && item.name === context)
      .sort((a, b) => Number(b.id ?? 0) - Number(a.id ?? 0));
    for (const item of mine) {
      const hostState = text(item.status) ?? '';
      const state = gitlabState(hostState);
      if (state === null) continue;
      return {
        found: {
          state,
          hostState,
          description: fitDescription(text(item.description) ?? ''),
          targetUrl: text(item.target_url),
        },
        more: false,
      };
    }
    return { found: null, more: body.length === PER_PAGE };
  },
  ancestry: (repo, older, newer) => ({
    method: 'GET',
    path: `/projects/${gitlabProject(repo)}/repository/merge_base?refs[]=${older}&refs[]=${newer}`,
  }),
  parseAncestry: (body, older) => {
    const id = isRecord(body) ? text(body.id) : null;
    if (id === null) return null;
    return id.startsWith(older) || older.startsWith(id);
  },
};

const GITEA: CommitStatusProvider = {
  name: 'gitea',
  title: 'Gitea',
  defaultApiUrl: null,
  authHeaders: (token) => ({ authorization: `token ${token}`, accept: 'application/json' }),
  repoProblem: GITHUB.repoProblem,
  repoFromRemote: lastTwo,
  // Gitea took GitHub's statuses API as it is: the same path and body.
  postStatus: GITHUB.postStatus,
  postAlreadyDone: () => false,
  readStatuses: (repo, commit, page) => ({
    method: 'GET',
    path: `/repos/${ownerRepoPath(repo)}/commits/${commit}/status?limit=${PER_PAGE}&page=${page}`,
  }),
  parseStatuses: parseCombined,
  // Gitea's compare answers 404 to two commits of one branch in some versions: its log of `newer` is asked instead.
  ancestry: (repo, _older, newer) => ({
    method: 'GET',
    path: `/repos/${ownerRepoPath(repo)}/commits?sha=${newer}&limit=${GITEA_LOG_LIMIT}&stat=false&verification=false&files=false`,
  }),
  parseAncestry: (body, older) => {
    if (!Array.isArray(body)) return null;
    if (body.some((commit) => isRecord(commit) && (text(commit.sha) ?? '').startsWith(older))) return true;
    // A log shorter than asked is the whole history: `older` is not in it. A full one may go on past it.
    return body.length < GITEA_LOG_LIMIT ? false : null;
  },
};

export const PROVIDERS: Readonly<Record<CommitStatusProviderName, CommitStatusProvider>> = {
  github: GITHUB,
  gitlab: GITLAB,
  gitea: GITEA,
};
