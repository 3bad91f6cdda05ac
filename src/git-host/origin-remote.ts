import { join } from 'node:path';
import { findGitDirs, readGitText } from './git-dir.js';

/**
 * Where a remote points, without what must never be printed: the host and
 * the repository's path on it. A URL's userinfo (`https://x-access-token:…@`,
 * `git@`) is dropped as the URL is read, so no later message can carry it.
 */
export interface RemoteLocation {
  /** `github.com`, `gitlab.example.com:8443`: the host, with a port when the URL gave one (ssh's is dropped). */
  readonly host: string;
  /** The path on the host without a leading `/` or a trailing `.git`: `acme/infra`, `group/sub/infra`. */
  readonly path: string;
}

/** The remote whose URL names the repository: the one `git clone` and git-sync make. */
export const ORIGIN = 'origin';

/**
 * The `origin` remote of the checkout `path` lives in, read from git's
 * config file (the shared one of a worktree) without spawning git, with
 * `url.<base>.insteadOf` applied as git applies it. null when there is no
 * checkout, no `origin`, or its URL is a local path.
 */
export async function readOriginRemote(path: string): Promise<RemoteLocation | null> {
  const dirs = await findGitDirs(path);
  if (dirs === null) return null;
  const config = await readGitText(join(dirs.commonDir, 'config'));
  if (config === null) return null;
  const url = remoteUrl(parseGitConfig(config), ORIGIN);
  return url === null ? null : parseRemoteUrl(url);
}

/** One `key = value` of a git config file, with its section and subsection (`remote`, `origin`, `url`). */
export interface GitConfigEntry {
  /** Lower case: git's section names are. */
  readonly section: string;
  /** As written: git's subsection names are case-sensitive. `''` when none. */
  readonly subsection: string;
  /** Lower case: git's variable names are. */
  readonly key: string;
  /** Unquoted and unescaped; `true` for a key given without `=`, as git reads it. */
  readonly value: string;
}

/**
 * git's config syntax, as much as a remote needs: sections with quoted
 * subsections (and the old `[section.sub]` form), comments after `#` or `;`
 * outside quotes, quoted values with `\"`, `\\`, `\n`, `\t` escapes, and a
 * line continued by a trailing backslash. `include` is not followed.
 */
export function parseGitConfig(text: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  let section = '';
  let subsection = '';
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index += 1) {
    let line = lines[index] as string;
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (header !== null) {
      const name = header[1] as string;
      if (header[2] === undefined && name.includes('.')) {
        const dot = name.indexOf('.');
        section = name.slice(0, dot).toLowerCase();
        subsection = name.slice(dot + 1).toLowerCase();
      } else {
        section = name.toLowerCase();
        subsection = (header[2] ?? '').replace(/\\(.)/g, '$1');
      }
      line = line.slice(header[0].length);
    }
    const variable = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(=?)(.*)$/.exec(line);
    if (variable === null || section === '') continue;
    let raw = variable[3] as string;
    while (/(?:^|[^\\])(?:\\\\)*\\$/.test(raw) && index + 1 < lines.length) {
      raw = raw.slice(0, -1) + (lines[index + 1] as string);
      index += 1;
    }
    entries.push({
      section,
      subsection,
      key: (variable[1] as string).toLowerCase(),
      value: variable[2] === '' ? 'true' : configValue(raw),
    });
  }
  return entries;
}

function configValue(raw: string): string {
  let value = '';
  let quoted = false;
  let pendingSpace = '';
  for (let index = 0; index < raw.length; index += 1) {
    const char = raw[index] as string;
    if (char === '\\') {
      const next = raw[index + 1] ?? '';
      value += pendingSpace + ({ n: '\n', t: '\t', b: '\b' }[next] ?? next);
      pendingSpace = '';
      index += 1;
    } else if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '#' || char === ';')) break;
    else if (!quoted && /\s/.test(char)) {
      // Whitespace inside an unquoted value is kept; around it, trimmed.
      if (value !== '') pendingSpace += char;
    } else {
      value += pendingSpace + char;
      pendingSpace = '';
    }
  }
  return value;
}

/**
 * The first `url` of `[remote "NAME"]` (what git fetches from), rewritten by
 * the longest matching `url.<base>.insteadOf`; null when the remote has none.
 */
export function remoteUrl(config: readonly GitConfigEntry[], name: string): string | null {
  const url = config.find(
    (entry) => entry.section === 'remote' && entry.subsection === name && entry.key === 'url',
  )?.value;
  if (url === undefined) return null;
  let rewrite: { readonly from: string; readonly to: string } | undefined;
  for (const entry of config) {
    if (entry.section !== 'url' || entry.key !== 'insteadof' || !url.startsWith(entry.value)) continue;
    if (rewrite === undefined || entry.value.length > rewrite.from.length) {
      rewrite = { from: entry.value, to: entry.subsection };
    }
  }
  return rewrite === undefined ? url : rewrite.to + url.slice(rewrite.from.length);
}

const URL_SCHEMES = new Set(['http:', 'https:', 'ssh:', 'git:', 'git+ssh:', 'ssh+git:']);
/** scp's form, `[user@]host:path`, which git takes when there is no `://` and no `/` before the colon. */
const SCP_LIKE = /^(?:[^@/]+@)?(\[[^\]]+\]|[^:/]+):(.+)$/;

/**
 * A remote URL's host and repository path, or null when it names no host
 * (a local path, `file://`). The URL's userinfo is not kept.
 */
export function parseRemoteUrl(url: string): RemoteLocation | null {
  const text = url.trim();
  if (text.includes('://')) {
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      return null;
    }
    if (!URL_SCHEMES.has(parsed.protocol) || parsed.hostname === '') return null;
    const web = parsed.protocol === 'http:' || parsed.protocol === 'https:';
    const path = repositoryPath(decodeURIComponent(parsed.pathname));
    return path === '' ? null : { host: web ? parsed.host : parsed.hostname, path };
  }
  const scp = SCP_LIKE.exec(text);
  if (scp === null) return null;
  const path = repositoryPath(scp[2] as string);
  return path === '' ? null : { host: (scp[1] as string).replace(/^\[|\]$/g, ''), path };
}

function repositoryPath(path: string): string {
  return path
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
}
