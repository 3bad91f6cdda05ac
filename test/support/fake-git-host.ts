import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CommitStatusProviderName } from '../../src/git-host/commit-status-providers.js';

/** One status as the fake keeps it, in the provider's own words (`running`, `failed`, `canceled` for GitLab). */
export interface HostedStatus {
  readonly id: number;
  readonly context: string;
  readonly state: string;
  readonly description: string;
  readonly targetUrl: string | null;
}

/** An answer the fake gives instead of serving the next requests: a rate limit, an outage. */
export interface ScriptedAnswer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/**
 * A local stand-in for the part of a Git host's API that commit statuses
 * use, as GitHub, GitLab or Gitea serve it: post a status, read a commit's
 * statuses (GitHub's and Gitea's combined status, GitLab's list), and
 * whether one commit contains another (GitHub's compare, GitLab's merge
 * base, Gitea's commit log), from a commit graph the test gives. It checks
 * each provider's own token header, answers 404 to anything else, keeps
 * every request (method, path, headers) and can answer the next requests
 * with a rate limit. Statuses are kept per commit, oldest first.
 */
export class FakeGitHost {
  readonly token: string;
  /** Commit → its statuses, oldest first. */
  readonly statuses = new Map<string, HostedStatus[]>();
  /** Commit → its parents: what ancestry is judged by. */
  readonly parents = new Map<string, readonly string[]>();
  readonly requests: {
    readonly method: string;
    readonly path: string;
    readonly headers: IncomingMessage['headers'];
  }[] = [];
  /** Answers given, in order, instead of the next requests. */
  readonly scripted: ScriptedAnswer[] = [];
  private server: Server | undefined;
  private nextId = 1;
  url = '';

  constructor(
    readonly provider: CommitStatusProviderName,
    readonly repository = provider === 'gitlab' ? 'platform/network/infra' : 'acme/infra',
    token?: string,
  ) {
    this.token = token ?? `${provider}-token-NEVER-PRINTED-7f3a`;
  }

  /** The API's URL as edgesync is given it: GitHub's root, GitLab's `/api/v4`, Gitea's `/api/v1`. */
  get apiUrl(): string {
    return `${this.url}${this.provider === 'github' ? '' : this.provider === 'gitlab' ? '/api/v4' : '/api/v1'}`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      void this.handle(request, response).catch((error: unknown) => {
        response.writeHead(500).end(String(error));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** The newest status of `context` on `commit`, or undefined. */
  latest(commit: string, context: string): HostedStatus | undefined {
    return (this.statuses.get(commit) ?? []).filter((status) => status.context === context).at(-1);
  }

  /** Every state posted for `context` on `commit`, in order. */
  history(commit: string, context: string): string[] {
    return (this.statuses.get(commit) ?? [])
      .filter((status) => status.context === context)
      .map((status) => status.state);
  }

  /** Sets a status as if posted (by the daemon, or another tool). */
  put(commit: string, status: Omit<HostedStatus, 'id'>): void {
    const list = this.statuses.get(commit) ?? [];
    list.push({ ...status, id: this.nextId++ });
    this.statuses.set(commit, list);
  }

  /** Whether `newer` is `older` or has it in its history, by the graph given in `parents`. */
  contains(newer: string, older: string): boolean {
    const seen = new Set<string>();
    const queue = [this.full(newer)];
    while (queue.length > 0) {
      const commit = queue.shift() as string;
      if (commit.startsWith(older)) return true;
      if (seen.has(commit)) continue;
      seen.add(commit);
      queue.push(...(this.parents.get(commit) ?? []));
    }
    return false;
  }

  private full(commit: string): string {
    return (
      [...this.parents.keys(), ...this.statuses.keys()].find((known) => known.startsWith(commit)) ?? commit
    );
  }

  private authorized(request: IncomingMessage): boolean {
    const headers = request.headers;
    if (this.provider === 'github') {
      return (
        headers.authorization === `Bearer ${this.token}` &&
        headers.accept === 'application/vnd.github+json' &&
        typeof headers['x-github-api-version'] === 'string'
      );
    }
    if (this.provider === 'gitlab') return headers['private-token'] === this.token;
    return headers.authorization === `token ${this.token}`;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    const method = request.method ?? 'GET';
    this.requests.push({ method, path: `${url.pathname}${url.search}`, headers: request.headers });
    const body = await readBody(request);
    const send = (status: number, answer: unknown, headers: Record<string, string> = {}): void => {
      response
        .writeHead(status, { 'content-type': 'application/json', ...headers })
        .end(JSON.stringify(answer));
    };
    const scripted = this.scripted.shift();
    if (scripted !== undefined)
      return send(scripted.status, scripted.body ?? { message: 'scripted' }, scripted.headers);
    if (!this.authorized(request)) return send(401, { message: 'Bad credentials' });
    const route = this.route(method, url, body);
    return send(route.status, route.body);
  }

  /** The answer to one authorized request, 404 when it is none of the status API's: another stand-in (FakeGitHub) serves it in its own routes. */
  route(method: string, url: URL, body: Record<string, unknown>): { status: number; body: unknown } {
    if (this.provider === 'github') return this.github(method, url, body);
    if (this.provider === 'gitlab') return this.gitlab(method, url, body);
    return this.gitea(method, url, body);
  }

  private github(method: string, url: URL, body: Record<string, unknown>): { status: number; body: unknown } {
    const prefix = `/repos/${this.repository}`;
    if (!url.pathname.startsWith(prefix)) return { status: 404, body: { message: 'Not Found' } };
    const path = url.pathname.slice(prefix.length);
    let match = /^\/statuses\/([0-9a-f]{40})$/.exec(path);
    if (match && method === 'POST')
      return this.post(match[1] as string, String(body.context), String(body.state), body);
    match = /^\/commits\/([0-9a-f]{7,40})\/status$/.exec(path);
    if (match && method === 'GET') return { status: 200, body: this.combined(match[1] as string, url) };
    match = /^\/compare\/([0-9a-f]{7,40})\.\.\.([0-9a-f]{7,40})$/.exec(path);
    if (match && method === 'GET') {
      const [older, newer] = [match[1] as string, match[2] as string];
      const status =
        newer.startsWith(older) || older.startsWith(newer)
          ? 'identical'
          : this.contains(newer, older)
            ? 'ahead'
            : this.contains(older, newer)
              ? 'behind'
              : 'diverged';
      return { status: 200, body: { status, files: [] } };
    }
    return { status: 404, body: { message: 'Not Found' } };
  }

  private gitlab(method: string, url: URL, body: Record<string, unknown>): { status: number; body: unknown } {
    // GitLab's project path arrives URL-encoded as one segment: platform%2Fnetwork%2Finfra.
    const prefix = `/api/v4/projects/${encodeURIComponent(this.repository)}`;
    const raw = url.pathname.replace(/%2f/g, '%2F');
    if (!raw.startsWith(prefix)) return { status: 404, body: { message: '404 Project Not Found' } };
    const path = raw.slice(prefix.length);
    let match = /^\/statuses\/([0-9a-f]{40})$/.exec(path);
    if (match && method === 'POST') {
      const commit = match[1] as string;
      const name = String(body.name);
      if (this.latest(commit, name)?.state === String(body.state)) {
        return {
          status: 400,
          body: {
            message: `Cannot transition status via :run from :${String(body.state)} (Reason(s): Status cannot transition via "run".)`,
          },
        };
      }
      return this.post(commit, name, String(body.state), body);
    }
    match = /^\/repository\/commits\/([0-9a-f]{7,40})\/statuses$/.exec(path);
    if (match && method === 'GET') {
      const commit = this.full(match[1] as string);
      const newest = new Map<string, HostedStatus>();
      for (const status of this.statuses.get(commit) ?? []) newest.set(status.context, status);
      return {
        status: 200,
        body: [...newest.values()].map((status) => ({
          id: status.id,
          sha: commit,
          name: status.context,
          status: status.state,
          description: status.description,
          target_url: status.targetUrl,
        })),
      };
    }
    if (path === '/repository/merge_base' && method === 'GET') {
      const [a, b] = url.searchParams.getAll('refs[]');
      if (a === undefined || b === undefined) return { status: 400, body: { message: 'refs missing' } };
      const base = this.contains(b, a) ? this.full(a) : this.contains(a, b) ? this.full(b) : null;
      return base === null
        ? { status: 404, body: { message: '404 Merge Base Not Found' } }
        : { status: 200, body: { id: base } };
    }
    return { status: 404, body: { message: '404 Not Found' } };
  }

  private gitea(method: string, url: URL, body: Record<string, unknown>): { status: number; body: unknown } {
    const prefix = `/api/v1/repos/${this.repository}`;
    if (!url.pathname.startsWith(prefix)) return { status: 404, body: { message: 'not found' } };
    const path = url.pathname.slice(prefix.length);
    let match = /^\/statuses\/([0-9a-f]{40})$/.exec(path);
    if (match && method === 'POST')
      return this.post(match[1] as string, String(body.context), String(body.state), body);
    match = /^\/commits\/([0-9a-f]{7,40})\/status$/.exec(path);
    if (match && method === 'GET') return { status: 200, body: this.combined(match[1] as string, url) };
    if (path === '/commits' && method === 'GET') {
      const limit = Number(url.searchParams.get('limit') ?? 30);
      const log: string[] = [];
      const queue = [this.full(url.searchParams.get('sha') ?? '')];
      while (queue.length > 0 && log.length < limit) {
        const commit = queue.shift() as string;
        if (log.includes(commit)) continue;
        log.push(commit);
        queue.push(...(this.parents.get(commit) ?? []));
      }
      return {
        status: 200,
        body: log.map((sha) => ({ sha, parents: (this.parents.get(sha) ?? []).map((p) => ({ sha: p })) })),
      };
    }
    return { status: 404, body: { message: 'not found' } };
  }

  private post(
    commit: string,
    context: string,
    state: string,
    body: Record<string, unknown>,
  ): { status: number; body: unknown } {
    const status = {
      context,
      state,
      description: String(body.description ?? ''),
      targetUrl: typeof body.target_url === 'string' ? body.target_url : null,
    };
    this.put(commit, status);
    return { status: 201, body: { ...status, target_url: status.targetUrl } };
  }

  /** GitHub's and Gitea's combined status: the newest status of each context. */
  private combined(commit: string, url: URL): unknown {
    const full = this.full(commit);
    const newest = new Map<string, HostedStatus>();
    for (const status of this.statuses.get(full) ?? []) newest.set(status.context, status);
    const perPage = Number(url.searchParams.get('per_page') ?? url.searchParams.get('limit') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    const all = [...newest.values()].reverse();
    return {
      sha: full,
      state: all.length === 0 ? 'pending' : all[0]?.state,
      total_count: all.length,
      statuses: all.slice((page - 1) * perPage, page * perPage).map((status) => ({
        id: status.id,
        context: status.context,
        state: status.state,
        description: status.description,
        target_url: status.targetUrl,
      })),
    };
  }
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}
