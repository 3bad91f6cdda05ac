import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeGitHost } from '../support/fake-git-host.js';

export interface FakeComment {
  readonly id: number;
  body: string;
  readonly user: { readonly type: 'Bot' | 'User'; readonly login: string };
}

export interface FakePull {
  readonly number: number;
  readonly headSha: string;
  readonly base: string;
}

/** The workflow every run of the fake belongs to. */
const WORKFLOW_ID = 77;

/**
 * The part of GitHub's REST API the action's script calls, kept in memory: a
 * pull request's comments (list with pages, create, update), the pull
 * requests a merge commit belongs to, and this workflow's runs. It checks
 * the token and answers 404 for anything else, so a call the script should
 * not make fails the test.
 */
export class FakeGitHub {
  readonly repository = 'acme/infra';
  readonly token = 'ghs_fake-token-never-printed';
  readonly comments = new Map<number, FakeComment[]>();
  /** Merge commit → the pull request it merged. */
  readonly merges = new Map<string, FakePull>();
  /** Successful pull_request runs: head commit → run ID. */
  readonly planRuns = new Map<string, number>();
  /** Commit statuses (what watch --commit-status posts, what the action's wait reads), with the same token. */
  readonly commitStatuses = new FakeGitHost('github', this.repository, this.token);
  /** Every request, `METHOD path`. */
  readonly requests: string[] = [];
  private nextId = 1000;
  private server: Server | undefined;
  url = '';

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

  /** A comment a person left, which the script must never take for its own. */
  addHumanComment(pull: number, body: string): void {
    this.list(pull).push({ id: this.nextId++, body, user: { type: 'User', login: 'someone' } });
  }

  /** The bot's comments on `pull` that start with `marker`. */
  botComments(pull: number, marker: string): FakeComment[] {
    return this.list(pull).filter(
      (comment) => comment.user.type === 'Bot' && comment.body.startsWith(marker),
    );
  }

  private list(pull: number): FakeComment[] {
    let list = this.comments.get(pull);
    if (list === undefined) {
      list = [];
      this.comments.set(pull, list);
    }
    return list;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    this.requests.push(`${request.method} ${url.pathname}`);
    this.commitStatuses.requests.push({
      method: request.method ?? 'GET',
      path: `${url.pathname}${url.search}`,
      headers: request.headers,
    });
    const send = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (request.headers.authorization !== `Bearer ${this.token}`)
      return send(401, { message: 'Bad credentials' });
    const prefix = `/repos/${this.repository}`;
    if (!url.pathname.startsWith(prefix)) return send(404, { message: 'Not Found' });
    const path = url.pathname.slice(prefix.length);
    const body = await readBody(request);
    let match = /^\/issues\/(\d+)\/comments$/.exec(path);
    if (match && request.method === 'GET') {
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      return send(200, this.list(Number(match[1])).slice((page - 1) * perPage, page * perPage));
    }
    if (match && request.method === 'POST') {
      const comment: FakeComment = {
        id: this.nextId++,
        body: String((body as { body: unknown }).body),
        user: { type: 'Bot', login: 'github-actions[bot]' },
      };
      this.list(Number(match[1])).push(comment);
      return send(201, comment);
    }
    match = /^\/issues\/comments\/(\d+)$/.exec(path);
    if (match && request.method === 'PATCH') {
      const id = Number(match[1]);
      const comment = [...this.comments.values()].flat().find((c) => c.id === id);
      if (comment === undefined) return send(404, { message: 'Not Found' });
      if (comment.user.type !== 'Bot') return send(403, { message: 'not yours' });
      comment.body = String((body as { body: unknown }).body);
      return send(200, comment);
    }
    match = /^\/commits\/([0-9a-f]{40})\/pulls$/.exec(path);
    if (match && request.method === 'GET') {
      const pull = this.merges.get(match[1] ?? '');
      return send(
        200,
        pull === undefined
          ? []
          : [
              {
                number: pull.number,
                merged_at: '2026-11-27T08:00:00Z',
                base: { ref: pull.base },
                head: { sha: pull.headSha },
              },
            ],
      );
    }
    match = /^\/actions\/runs\/(\d+)$/.exec(path);
    if (match && request.method === 'GET')
      return send(200, { id: Number(match[1]), workflow_id: WORKFLOW_ID });
    if (path === `/actions/workflows/${WORKFLOW_ID}/runs` && request.method === 'GET') {
      const head = url.searchParams.get('head_sha') ?? '';
      const ok =
        url.searchParams.get('event') === 'pull_request' && url.searchParams.get('status') === 'success';
      const id = this.planRuns.get(head);
      return send(200, { workflow_runs: ok && id !== undefined ? [{ id, head_sha: head }] : [] });
    }
    const statuses = this.commitStatuses.route(
      request.method ?? 'GET',
      url,
      (body ?? {}) as Record<string, unknown>,
    );
    return send(statuses.status, statuses.body);
  }
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}
