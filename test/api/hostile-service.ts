import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { type CliRun, runEdgesyncProcess } from '../support/edgesync-cli.js';
import { type RecordedRequest, type ScriptedServer, scriptedServers, sendJson } from './scripted-server.js';

/** The list key of each listed collection, by its path. */
export const LIST_KEYS: Readonly<Record<string, string>> = {
  '/ip_policy_rules': 'ip_policy_rules',
  '/reserved_addrs': 'reserved_addrs',
  '/certificate_authorities': 'certificate_authorities',
  '/edges/https': 'https_edges',
};

export const API_KEY = 'sk_hostile_Key0123456789abcdef';
export const POLICY = 'ipp_HostilePolicy0000000000001';

/** Answers the request and returns true, or returns false to let the default answer it. */
export type HostileAnswer = (request: RecordedRequest, response: ServerResponse, index: number) => boolean;

/**
 * A service written by the test: `answer` decides what it wants to, and
 * every list it leaves alone is an empty page, the IP policy the manifests
 * name is there (a plan reads it by ID), every other request a 404.
 */
export function hostileServices(): (answer: HostileAnswer) => Promise<ScriptedServer> {
  const serve = scriptedServers();
  return (answer) =>
    serve((request, response, index) => {
      if (answer(request, response, index)) return;
      const path = new URL(request.url, 'http://x').pathname;
      const key = LIST_KEYS[path];
      if (request.method === 'GET' && key !== undefined) {
        sendJson(response, 200, { [key]: [], uri: path, next_page_uri: null });
        return;
      }
      if (request.method === 'GET' && path === `/ip_policies/${POLICY}`) {
        sendJson(response, 200, { id: POLICY, uri: `http://x${path}`, description: '', metadata: '' });
        return;
      }
      sendJson(response, 404, { error_code: 'not_found', status_code: 404, msg: 'not found', details: {} });
    });
}

/** The path of a request without its query. */
export function pathOf(request: RecordedRequest): string {
  return new URL(request.url, 'http://x').pathname;
}

/** A rule as the service lists it, marked as the default owner's entry `name`. */
export function listedRule(id: string, name: string, cidr: string, action: 'allow' | 'deny'): object {
  return {
    id,
    uri: `http://x/ip_policy_rules/${id}`,
    created_at: '2026-01-01T00:00:00Z',
    description: '',
    metadata: JSON.stringify({ edgesync: { owner: 'default', name } }),
    cidr,
    ip_policy: { id: POLICY, uri: `http://x/ip_policies/${POLICY}` },
    action,
  };
}

/** `rules` as a manifest of deny rules named `name: cidr`. */
export function rulesManifest(
  rules: Readonly<Record<string, string>>,
  action: 'allow' | 'deny' = 'deny',
): string {
  const entries = Object.entries(rules).map(
    ([name, cidr]) => `  ${name}:\n    ip_policy_id: ${POLICY}\n    cidr: ${cidr}\n    action: ${action}\n`,
  );
  return `version: 1\nip_policy_rules:\n${entries.join('')}`;
}

/** A temp directory per test holding `manifest.yaml`, removed after the test. */
export function manifestDirectories(): (yaml: string) => Promise<string> {
  let made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
    made = [];
  });
  return async (yaml) => {
    const dir = await mkdtemp(join(tmpdir(), 'edgesync-hostile-'));
    made.push(dir);
    await writeFile(join(dir, 'manifest.yaml'), yaml);
    return dir;
  };
}

/** `edgesync ARGS` as a process against `server`, killed after `limitMs` (a bound on a hang, never asserted). */
export function runAgainst(
  server: ScriptedServer,
  args: readonly string[],
  options: { readonly cwd: string; readonly env?: Record<string, string>; readonly limitMs?: number },
): Promise<CliRun> {
  return runEdgesyncProcess(args, {
    cwd: options.cwd,
    env: { EDGE_API_URL: server.url, EDGE_API_KEY: API_KEY, NO_COLOR: '1', ...options.env },
    limitMs: options.limitMs ?? 25_000,
  });
}

/** Forwards the request to `target` (an emulator) and its answer back, as a proxy in front of the service would. */
export function forwardTo(target: string, request: RecordedRequest, response: ServerResponse): void {
  const { host: _host, 'content-length': _length, ...headers } = request.headers;
  const forwarded = httpRequest(
    new URL(request.url, target),
    {
      method: request.method,
      headers: {
        ...headers,
        ...(request.body === '' ? {} : { 'content-length': Buffer.byteLength(request.body) }),
      },
    },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  forwarded.on('error', () => response.destroy());
  forwarded.end(request.body === '' ? undefined : request.body);
}
