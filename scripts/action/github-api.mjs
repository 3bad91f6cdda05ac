// The few GitHub REST calls the action makes (comments, the merged pull
// request, the run that planned it), with fetch and the job's token. Kept
// apart so that a test points GITHUB_API_URL at a local server and drives
// the action without GitHub.

/** A page is 100 items; a pull request with more than 30 pages of comments is read no further. */
const PER_PAGE = 100;
const MAX_PAGES = 30;
/** Bodies of GitHub's answers read at most (a page of 100 comments is well under it). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export class GitHubApi {
  /**
   * @param {{ apiUrl: string, token: string, repository: string }} options
   */
  constructor({ apiUrl, token, repository }) {
    this.apiUrl = apiUrl.replace(/\/+$/, '');
    this.token = token;
    this.repository = repository;
  }

  /**
   * @param {string} method
   * @param {string} path below /repos/OWNER/REPO
   * @param {unknown} [body]
   * @returns {Promise<any>}
   */
  async request(method, path, body) {
    const url = `${this.apiUrl}/repos/${this.repository}${path}`;
    const response = await fetch(url, {
      method,
      headers: {
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        ...(this.token === '' ? {} : { authorization: `Bearer ${this.token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (text.length > MAX_BODY_BYTES)
      throw new Error(`${method} ${path}: answer over ${MAX_BODY_BYTES} bytes`);
    if (!response.ok) {
      throw new Error(`GitHub API ${method} ${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
    }
    return text === '' ? undefined : JSON.parse(text);
  }

  /**
   * Every comment of an issue or pull request, page by page.
   * @param {number} issue
   * @returns {Promise<any[]>}
   */
  async comments(issue) {
    const all = [];
    for (let page = 1; page <= MAX_PAGES; page += 1) {
      const items = await this.request('GET', `/issues/${issue}/comments?per_page=${PER_PAGE}&page=${page}`);
      if (!Array.isArray(items)) throw new Error('GitHub API: a list of comments was expected');
      all.push(...items);
      if (items.length < PER_PAGE) break;
    }
    return all;
  }

  /**
   * Posts `body` on the pull request, or updates the bot's comment that starts with `marker`.
   * @param {number} issue
   * @param {string} marker
   * @param {string} body
   * @returns {Promise<'created' | 'updated'>}
   */
  async upsertComment(issue, marker, body) {
    const text = `${marker}\n${body}`;
    const previous = (await this.comments(issue)).find(
      (comment) =>
        comment?.user?.type === 'Bot' && typeof comment.body === 'string' && comment.body.startsWith(marker),
    );
    if (previous !== undefined) {
      await this.request('PATCH', `/issues/comments/${previous.id}`, { body: text });
      return 'updated';
    }
    await this.request('POST', `/issues/${issue}/comments`, { body: text });
    return 'created';
  }

  /**
   * The pull request merged into `base` by `sha`, and the last successful
   * `pull_request` run of this workflow on its head commit (which saved the
   * reviewed plan). Either is null when not found.
   * @param {string} sha
   * @param {string} base
   * @param {string} runId this run, to learn which workflow it is
   * @returns {Promise<{ pull: number | null, head: string | null, planRunId: string | null }>}
   */
  async reviewedPlan(sha, base, runId) {
    const pulls = await this.request('GET', `/commits/${sha}/pulls`);
    const pull = Array.isArray(pulls)
      ? pulls.find((p) => p?.merged_at !== null && p?.merged_at !== undefined && p?.base?.ref === base)
      : undefined;
    if (pull === undefined) return { pull: null, head: null, planRunId: null };
    const head = String(pull.head?.sha ?? '');
    const thisRun = await this.request('GET', `/actions/runs/${runId}`);
    const runs = await this.request(
      'GET',
      `/actions/workflows/${thisRun.workflow_id}/runs?event=pull_request&status=success&head_sha=${head}&per_page=1`,
    );
    const planned = runs?.workflow_runs?.[0];
    return { pull: Number(pull.number), head, planRunId: planned === undefined ? null : String(planned.id) };
  }
}
