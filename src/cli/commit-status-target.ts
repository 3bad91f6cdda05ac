import { resolve } from 'node:path';
import { readTokenFile } from '../credential-file.js';
import { OptionError } from '../errors.js';
import {
  type CommitStatusProvider,
  type CommitStatusProviderName,
  PROVIDERS,
} from '../git-host/commit-status-providers.js';
import { statusContext } from '../git-host/commit-status-text.js';
import { readOriginRemote } from '../git-host/origin-remote.js';
import type { CommitStatusFlags } from './commit-status-flags.js';

/** Where commit statuses go or are read: the host, the repository, the token's file and the context. */
export interface CommitStatusTarget {
  readonly provider: CommitStatusProvider;
  readonly apiUrl: URL;
  readonly repo: string;
  /** Absolute: read again before each request. */
  readonly tokenFile: string;
  /** Who else can read the token file, when someone should not (said once at start). */
  readonly exposure: string | undefined;
  /** `edgesync/<owner>[/<instance>]`. */
  readonly context: string;
  /** Said once at start: what was derived, and what looks wrong (a GitHub remote elsewhere than github.com). */
  readonly notes: readonly string[];
}

const INSTANCE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** `--instance` checked: the same characters as an owner, since it is part of the status's context. */
export function parseInstance(instance: string | undefined): string | undefined {
  if (instance === undefined || instance === '') return undefined;
  if (!INSTANCE.test(instance)) {
    throw new OptionError(
      '--instance',
      `expected letters, digits, ".", "_" or "-", at most 63 (found "${instance}")`,
    );
  }
  return instance;
}

/**
 * The commit-status flags checked and completed: the API's URL from the
 * provider's default, the repository from the checkout's `origin` remote
 * (read from git's files, `checkout` being where the manifests or the
 * command live), and the token file read once so that a wrong path fails at
 * start. null when `--commit-status` is not given; its companions without it
 * are an error, as a daemon that silently posts nothing would be.
 */
export async function commitStatusTarget(
  flags: CommitStatusFlags & { readonly owner: string },
  where: {
    /** Where the repository's checkout is (the manifests, or the command's directory). */
    readonly checkout: string;
    /** What a relative token file is relative to. */
    readonly cwd: string;
  },
): Promise<CommitStatusTarget | null> {
  const { checkout } = where;
  const instance = parseInstance(flags.instance);
  if (flags.commitStatus === undefined) {
    const companion = (
      [
        ['--commit-status-token-file', flags.commitStatusTokenFile],
        ['--commit-status-api-url', flags.commitStatusApiUrl],
        ['--commit-status-repo', flags.commitStatusRepo],
      ] as const
    ).find(([, value]) => value !== undefined);
    if (companion !== undefined) {
      throw new OptionError(companion[0], 'needs --commit-status github|gitlab|gitea, which names the host');
    }
    return null;
  }
  const provider = PROVIDERS[flags.commitStatus as CommitStatusProviderName];
  if (flags.commitStatusTokenFile === undefined) {
    throw new OptionError(
      '--commit-status-token-file',
      `required with --commit-status ${provider.name}: the file holding the ${provider.title} token`,
    );
  }
  const tokenFile = resolve(where.cwd, flags.commitStatusTokenFile);
  const { exposure } = await readTokenFile(tokenFile, '--commit-status-token-file');
  const apiUrl = parseApiUrl(provider, flags.commitStatusApiUrl);
  const notes: string[] = [];
  let repo = flags.commitStatusRepo;
  if (repo === undefined) {
    const remote = await readOriginRemote(checkout);
    if (remote === null) {
      throw new OptionError(
        '--commit-status-repo',
        `required: ${checkout} is in no git checkout with an origin remote to take the repository from`,
      );
    }
    repo = provider.repoFromRemote(remote);
    notes.push(`the repository ${repo} on ${remote.host}, from the checkout's origin remote`);
    if (
      provider.name === 'github' &&
      flags.commitStatusApiUrl === undefined &&
      remote.host !== 'github.com'
    ) {
      notes.push(
        `origin is on ${remote.host}, not github.com: for GitHub Enterprise set --commit-status-api-url https://${remote.host}/api/v3`,
      );
    }
  }
  const problem = provider.repoProblem(repo);
  if (problem !== null) throw new OptionError('--commit-status-repo', problem);
  return {
    provider,
    apiUrl,
    repo,
    tokenFile,
    exposure,
    context: statusContext(flags.owner, instance),
    notes,
  };
}

function parseApiUrl(provider: CommitStatusProvider, given: string | undefined): URL {
  const text = given ?? provider.defaultApiUrl;
  if (text === null) {
    throw new OptionError(
      '--commit-status-api-url',
      `required with --commit-status ${provider.name}: ${provider.title} has no default host (e.g. https://gitea.example.com/api/v1)`,
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OptionError(
      '--commit-status-api-url',
      `expected a URL like https://api.github.com (found "${text}")`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new OptionError(
      '--commit-status-api-url',
      `expected https:// or http:// (found "${url.protocol}")`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new OptionError(
      '--commit-status-api-url',
      'must not carry a user or password: the token goes in --commit-status-token-file',
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new OptionError('--commit-status-api-url', 'expected the API root, without a query or fragment');
  }
  return url;
}
