import { appendFileSync, existsSync } from 'node:fs';
import nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';
import { CachedChunks, chunkCacheDir } from './cached-chunks.js';

type RunEdgesyncModule = typeof import('./run-edgesync.js');

/** In the bundle (scripts/bundle-cli.mjs), main.js is dist/cli/main.js and the chunks are in dist/cli/chunks/. */
const BUNDLED_RUN_EDGESYNC = fileURLToPath(new URL('./chunks/run-edgesync.js', import.meta.url));

/**
 * run-edgesync.ts and, through it, the commands: from the bundle's chunks with
 * their code cache (cached-chunks.ts), or, run from dist/src without the
 * bundle, as plain modules.
 *
 * EDGESYNC_TRACE_LOADS=FILE appends to FILE, at exit, every chunk loaded and
 * every module a chunk required (test/cli/lazy-commands.test.ts reads it: Node's
 * loader hooks do not see chunks compiled as scripts).
 */
export async function loadRunEdgesync(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<RunEdgesyncModule> {
  if (existsSync(BUNDLED_RUN_EDGESYNC)) {
    const nodeCacheDir = (
      nodeModule as { getCompileCacheDir?: () => string | undefined }
    ).getCompileCacheDir?.();
    const chunks = new CachedChunks(chunkCacheDir(env, nodeCacheDir), { command: cacheNameOf(argv[2]) });
    const trace = env.EDGESYNC_TRACE_LOADS;
    if (trace !== undefined && trace !== '') {
      process.once('exit', () => appendFileSync(trace, chunks.loads.map((load) => `${load}\n`).join('')));
    }
    return chunks.load(BUNDLED_RUN_EDGESYNC) as RunEdgesyncModule;
  }
  // The bundle's main.js keeps this import as it is (scripts/bundle-cli.mjs) and never reaches it.
  return import('./run-edgesync.js');
}

/** The command named first (`validate`), or `_` for anything else (`--help`, options first): a file name part either way. */
function cacheNameOf(firstArgument: string | undefined): string {
  return firstArgument !== undefined && /^[a-z][a-z-]{0,31}$/.test(firstArgument) ? firstArgument : '_';
}
