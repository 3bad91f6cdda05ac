#!/usr/bin/env node
import nodeModule from 'node:module';
import { VERSION } from '../version.js';
import { EXIT } from './exit-codes.js';
import { loadRunEdgesync } from './load-run-edgesync.js';
import { outputStream } from './output-stream.js';

// Node 22.1+ keeps V8's compiled code of the modules Node loads from here on
// (this file, and packages the commands require, such as pino) in the OS temp
// directory, so the next run skips compiling them (start time: docs/performance.md). The
// bundle's own chunks get a fuller cache of their own (cached-chunks.ts). Node
// 20 has no such cache: the feature test makes this a no-op there. A cache
// directory that cannot be written is reported by the return value, never
// thrown, and NODE_DISABLE_COMPILE_CACHE=1 turns both caches off.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

async function main(argv: readonly string[]): Promise<number> {
  // `edgesync --version` alone answers before commander and the commands load (start time: docs/performance.md).
  if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
    outputStream(1, () => process.stdout).write(`${VERSION}\n`);
    return EXIT.ok;
  }
  const shutdown = new AbortController();
  // The first signal asks the command to stop cleanly (an apply settles what it sent and
  // reports); a second one means "now": say that the summary will be missing and die of it.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!shutdown.signal.aborted) {
      shutdown.abort();
      return;
    }
    process.stderr.write(
      `\nedgesync: second ${signal}: exiting now; the summary is incomplete (\`edgesync plan\` shows what is applied)\n`,
    );
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.kill(process.pid, signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const { runEdgesync } = await loadRunEdgesync(argv, process.env);
    return await runEdgesync(argv, {
      // Not process.stdout and process.stderr themselves: on a pipe they load `net` (output-stream.ts).
      stdout: outputStream(1, () => process.stdout),
      stderr: outputStream(2, () => process.stderr),
      // A getter: touching process.stdin sets up a stream, which only apply's confirmation needs.
      get stdin() {
        return process.stdin;
      },
      env: process.env,
      cwd: process.cwd(),
      shutdown: shutdown.signal,
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

// Not a top-level await: the bundle's main.js is CommonJS (scripts/bundle-cli.mjs).
main(process.argv).then((code) => {
  process.exitCode = code;
});
