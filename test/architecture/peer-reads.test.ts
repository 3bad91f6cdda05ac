import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

/**
 * Every place in src/ that reads a peer, and what it reads. Each goes
 * through `readPeer` (src/peer/read-peer.ts): one deadline over connecting,
 * the headers and the whole body, a size bound, and the caller's signal. A
 * new caller is added here, with its tests of a trickling peer and a signal.
 */
const PEER_READERS: Readonly<Record<string, string>> = {
  'api/http-attempt.ts': 'the service: every request of plan, apply, export, watch (one attempt)',
  'doctor/raw-get.ts': "the service: doctor's read-only checks, with the headers",
  'cli/status-read.ts':
    "a daemon's /status: status --daemon-url, status --wait-commit, the CI guard of apply --daemon-url",
  'cli/daemon-request.ts':
    "a daemon's POST /reconcile, /suspend and /resume, and its /status with reconcile --wait",
  'cli/inventory-read.ts': "a daemon's /inventory, page by page: get --daemon-url",
  'notify/webhook-delivery.ts': "the daemon's --notify webhook receivers",
  'git-host/git-host-client.ts':
    "a Git host's commit-status API: watch --commit-status, status --wait-commit --commit-status",
};

/**
 * The modules that open connections, and the names of theirs src/ may use
 * with a value import, with why: nothing else of theirs, and no global
 * `fetch`, so that a read that skips `readPeer` fails here.
 */
const NETWORK_MODULES = [
  'node:http',
  'node:https',
  'node:http2',
  'node:net',
  'node:tls',
  'node:dgram',
  'undici',
];
const ALLOWED_VALUE_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  // The helper itself.
  'peer/read-peer.ts': ['request'],
  // The service's connection pools, handed to readPeer.
  'api/http-attempt.ts': ['Agent'],
  // A ClientHello under a total deadline, to tell a TLS server from a dead one in an error's hint.
  'cli/error-hints.ts': ['connect'],
  // Servers: they answer, they read no peer.
  'watch/watch-server.ts': ['createServer'],
  'emulator/serve-emulator.ts': ['createServer'],
};

function sourceFiles(): string[] {
  return readdirSync(SRC, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(SRC, join(entry.parentPath, entry.name)));
}

const VALUE_IMPORT = /(?:^|\n)\s*import\s+(?!type\s)([^'";]*?)\s+from\s+['"]([^'"]+)['"]/g;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)|\brequire\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The names a file imports as values from a network module (`request`, `Agent`), or `*` for a namespace or a dynamic import. */
function networkImports(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const match of text.matchAll(VALUE_IMPORT)) {
    const module = match[2] as string;
    if (!NETWORK_MODULES.includes(module)) continue;
    const clause = match[1] as string;
    const named = /\{([^}]*)\}/.exec(clause)?.[1];
    const names =
      named === undefined
        ? []
        : named
            .split(',')
            .map((name) => name.trim())
            .filter((name) => name !== '' && !name.startsWith('type '))
            .map((name) => name.split(/\s+as\s+/)[0] as string);
    // A default or namespace import: everything the module has.
    if (named === undefined || /^\s*\w+\s*,/.test(clause)) names.push('*');
    if (names.length > 0) found.set(module, [...(found.get(module) ?? []), ...names]);
  }
  for (const match of text.matchAll(DYNAMIC_IMPORT)) {
    const module = (match[1] ?? match[2]) as string;
    if (NETWORK_MODULES.includes(module)) found.set(module, [...(found.get(module) ?? []), '*']);
  }
  return found;
}

/** What in one file's text reaches the network outside the allowed imports: `fetch(…)`, other names. */
function unboundedReads(file: string, text: string): string[] {
  const problems: string[] = [];
  const allowed = ALLOWED_VALUE_IMPORTS[file] ?? [];
  for (const [module, names] of networkImports(text)) {
    for (const name of names) {
      if (!allowed.includes(name)) problems.push(`${file} imports ${name} from ${module}`);
    }
  }
  if (/(?<![.\w])fetch\s*\(/.test(text)) problems.push(`${file} calls fetch()`);
  return problems;
}

describe('every read of a peer goes through readPeer', () => {
  const files = sourceFiles();
  const texts = new Map(files.map((file) => [file, readFileSync(join(SRC, file), 'utf8')]));

  it('src/ opens no connection but through readPeer and the listed exceptions, and calls no fetch', () => {
    const problems = files.flatMap((file) => unboundedReads(file, texts.get(file) as string));

    expect(problems).toEqual([]);
  });

  it('lists every caller of readPeer, and each listed caller calls it', () => {
    const callers = files
      .filter((file) => file !== 'peer/read-peer.ts' && /\breadPeer\(/.test(texts.get(file) as string))
      .sort();

    expect(callers).toEqual(Object.keys(PEER_READERS).sort());
  });

  it('catches fetch, a request from node:http or node:https, a namespace import and a dynamic import', () => {
    const planted: [string, string][] = [
      ['cli/a.ts', 'const r = await fetch(url, { signal });'],
      ['notify/b.ts', "import { request } from 'node:https';"],
      ['watch/c.ts', "import { get as httpGet, type IncomingMessage } from 'node:http';"],
      ['watch/d.ts', "import * as http from 'node:http';"],
      ['watch/e.ts', "const { request } = await import('node:http');"],
      ['watch/f.ts', "import http from 'node:http';"],
      ['watch/g.ts', "import type { IncomingMessage } from 'node:http';\nfoo.fetchAll();"],
    ];

    expect(planted.flatMap(([file, text]) => unboundedReads(file, text))).toEqual([
      'cli/a.ts calls fetch()',
      'notify/b.ts imports request from node:https',
      'watch/c.ts imports get from node:http',
      'watch/d.ts imports * from node:http',
      'watch/e.ts imports * from node:http',
      'watch/f.ts imports * from node:http',
    ]);
  });
});
