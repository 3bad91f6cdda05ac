import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Kind } from '../../kinds/kind.js';
import { type LoadOptions, loadDesiredState } from '../../manifest/load-desired-state.js';
import type { ManifestError } from '../../manifest/manifest-error.js';
import type { ManifestMemo } from '../../manifest/manifest-memo.js';
import { manifestsRead, manifestsReadToJson } from '../../plan-session/manifests-read.js';
import type { ManifestProblem } from '../daemon-status.js';
import { isForcedTrigger, type ReconcileTrigger } from '../reconcile-loop.js';
import type { ManifestsRecord } from './reconcile-record.js';

/** What the load stage reads with, the same for every run. */
export interface ManifestSource {
  readonly kinds: readonly Kind[];
  /** Manifest files and directories. */
  readonly paths: readonly string[];
  readonly load: LoadOptions;
  /** Each manifest file's entries since it last changed: a file event re-reads only the files that changed. */
  readonly memo: ManifestMemo;
  /** Base of relative manifest paths. */
  readonly cwd: string;
}

/**
 * The load stage: the manifests as they are now, against what the last load
 * left. Valid, they are the desired state; invalid, the last valid desired
 * state stays, with the problems beside it. Logs which directories were
 * read when that changes (a directory added, a symlink skipped), and on a
 * forced re-read, as validate, plan and apply say it.
 */
export async function loadManifests(
  source: ManifestSource,
  last: ManifestsRecord,
  trigger: ReconcileTrigger,
  log: Logger,
): Promise<ManifestsRecord> {
  // A resync (the timer, SIGHUP) builds again every file whose entries reference others (a CA PEM, a secret
  // file), which raise no event of their own; every load re-reads only the manifest files whose bytes changed.
  if (trigger !== 'change') source.memo.forgetResolvedReferences();
  const loaded = await loadDesiredState(source.paths, {
    ...source.load,
    kinds: source.kinds,
    memo: source.memo,
  });
  if (!loaded.ok) {
    const problems = loaded.errors.map(toProblem);
    log.warn(
      { errors: problems.length, first: problems[0] },
      'manifests invalid; keeping the last valid desired state',
    );
    return { ...last, valid: false, problems };
  }
  const read = manifestsReadToJson(manifestsRead(loaded.value, source.paths, false));
  const said = JSON.stringify(read);
  if (said !== last.said || isForcedTrigger(trigger)) log.info(read, 'manifests read');
  const realPaths = await realPathsOf(loaded.value.files, source.cwd);
  return { valid: true, problems: [], desired: loaded.value, said, realPaths };
}

/**
 * Each file as the loader names it, by its real path: what the watcher's
 * events name (it watches directories by their real paths), so that the
 * settle stage knows which entries an event may have moved. A file gone
 * since it was read keeps its name made absolute.
 */
async function realPathsOf(files: readonly string[], cwd: string): Promise<ReadonlyMap<string, string>> {
  const pairs = await Promise.all(
    files.map(async (file) => {
      const absolute = resolve(cwd, file);
      return [file, await realpath(absolute).catch(() => absolute)] as const;
    }),
  );
  return new Map(pairs);
}

function toProblem(error: ManifestError): ManifestProblem {
  return {
    file: error.file,
    line: error.line ?? null,
    column: error.column ?? null,
    path: error.path,
    message: error.detail,
  };
}
