import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../support/built-cli.js';
import { ROOT } from '../support/edgesync-cli.js';
import { holdsLine, type RunnableStep, runnableSteps, shellBlocks } from '../support/runnable-blocks.js';
import { findOnPath, shellPath } from '../support/shell-path.js';

/**
 * Every `sh` block of README.md and docs/*.md is run, in the order written,
 * as a reader runs it: in a shell, in a directory holding the repository's
 * examples as the repository has them (`examples/manifests`), with
 * `edgesync` and `npx edgesync` on the PATH meaning this build.
 * A file whose blocks start no emulator gets one, seeded with the examples'
 * seed, at EDGE_API_URL. Each command's documented output lines and exit
 * code are checked. Port 8080 in a block becomes a free port.
 */

const DOCS = [
  'README.md',
  ...(await readdir(join(ROOT, 'docs')))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

const started: ChildProcess[] = [];
const made: string[] = [];

afterAll(async () => {
  for (const child of started) child.kill('SIGTERM');
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** A directory like a reader's clone, with `edgesync` and `npx edgesync` running this build. */
async function workspace(): Promise<{ work: string; out: string; bin: string }> {
  const base = await mkdtemp(join(tmpdir(), 'edgesync-docs-'));
  made.push(base);
  const work = join(base, 'work');
  const out = join(base, 'out');
  const bin = join(base, 'bin');
  await mkdir(out);
  await mkdir(bin);
  await cp(join(ROOT, 'examples'), join(work, 'examples'), { recursive: true });
  await symlink(join(ROOT, 'dist'), join(work, 'dist'));
  const run = `exec "${process.execPath}" "${BUILT_CLI}" "$@"`;
  await writeFile(join(bin, 'edgesync'), `#!/bin/sh\n${run}\n`);
  await writeFile(
    join(bin, 'npx'),
    `#!/bin/sh\n[ "$1" = edgesync ] || { echo "npx: only edgesync here" >&2; exit 127; }\nshift\n${run}\n`,
  );
  await writeFile(join(bin, 'node'), `#!/bin/sh\nexec "${process.execPath}" "$@"\n`);
  await Promise.all(['edgesync', 'npx', 'node'].map((name) => chmod(join(bin, name), 0o755)));
  return { work, out, bin };
}

/** An emulator of the examples' seed for a file whose blocks start none. */
async function startEmulator(): Promise<string> {
  const child = spawn(
    process.execPath,
    // The budget lifted as for the commands (EDGESYNC_RATE_LIMIT below): doctor's probes alone spend over 100 requests.
    [
      BUILT_CLI,
      'emulator',
      '--seed',
      'examples/emulator-seed.yaml',
      '--api-key',
      'dev-key',
      '--port',
      '0',
      '--rate-limit',
      '6000/60s',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  started.push(child);
  return new Promise((resolveUrl, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const url = /^(http\S+)\n/.exec(text)?.[1];
      if (url !== undefined) resolveUrl(url);
    });
    child.on('exit', () => reject(new Error(`the emulator ended before it served: ${text}`)));
  });
}

/** The shell script that runs the steps, each step's output and exit code in OUT/N.out and OUT/N.code. */
function script(steps: readonly RunnableStep[], port: number): string {
  const lines = ['set -u', 'cd "$WORK"', `trap 'kill $(jobs -p) 2>/dev/null' EXIT`];
  steps.forEach((step, index) => {
    const command = step.command.replaceAll('8080', String(port));
    const background = command.endsWith('&');
    const body = background ? command.slice(0, -1) : command;
    const capture = `> "$OUT/${index}.out" 2>&1 < /dev/null`;
    if (background) {
      // Not in a group: a backgrounded group is a subshell, and `kill %1` would stop it and leave the server.
      lines.push(`${body.trimEnd()} ${capture} &`);
      // A reader starting a server waits until it says where it listens.
      lines.push(`for _ in $(seq 1 200); do [ -s "$OUT/${index}.out" ] && break; sleep 0.05; done`);
      lines.push(`echo 0 > "$OUT/${index}.code"`);
    } else {
      lines.push(`{ ${body}\n} ${capture}`, `echo $? > "$OUT/${index}.code"`);
    }
  });
  return `${lines.join('\n')}\n`;
}

function runScript(text: string, env: Record<string, string>): Promise<string> {
  return new Promise((done) => {
    execFile(
      findOnPath('bash', env.PATH ?? ''),
      ['-c', text],
      { env, timeout: 150_000 },
      (_error, _stdout, stderr) => done(stderr),
    );
  });
}

describe('the docs, run as written', async () => {
  const files = await Promise.all(
    DOCS.map(async (file) => ({
      file,
      steps: runnableSteps(await readFile(join(ROOT, file), 'utf8'), file),
    })),
  );

  it('runs every shell block there is: each is `sh`, or `console` with a comment saying why it cannot run here', async () => {
    const others: string[] = [];
    for (const file of DOCS) {
      for (const block of shellBlocks(await readFile(join(ROOT, file), 'utf8'), file)) {
        if (block.info === 'sh') continue;
        if (block.info !== 'console')
          others.push(`${block.location}: \`\`\`${block.info} (sh to run it, console if it cannot run here)`);
        else if (!/^# .*(not run|cannot run)/i.test(block.lines[0] ?? '')) {
          others.push(
            `${block.location}: a console block's first line says why the docs test does not run it`,
          );
        }
      }
    }
    expect(others).toEqual([]);
  });

  it('has runnable blocks in the README and in the docs of every command that talks to the service', () => {
    const withSteps = files.filter((entry) => entry.steps.length > 0).map((entry) => entry.file);
    expect(withSteps).toEqual(
      expect.arrayContaining(['README.md', 'docs/plan.md', 'docs/apply.md', 'docs/export.md']),
    );
  });

  for (const { file, steps } of files.filter((entry) => entry.steps.length > 0)) {
    // Each file in its own directory with its own emulator: they run side by side.
    it.concurrent(`${file}: every runnable command prints what is written under it and exits as written`, async () => {
      const { work, out, bin } = await workspace();
      const port = await freePort();
      const startsOwn = steps.some((step) => / emulator /.test(step.command));
      const env: Record<string, string> = {
        PATH: `${bin}:${shellPath()}`,
        HOME: work,
        WORK: work,
        OUT: out,
        // The output and exit codes are what is checked here, in npm test's time: the budget is lifted for
        // the emulator and the client alike. test/reliability/readme-tour.test.ts runs the tour at 120 a minute.
        EDGESYNC_RATE_LIMIT: '6000/60s',
      };
      if (!startsOwn) Object.assign(env, { EDGE_API_URL: await startEmulator(), EDGE_API_KEY: 'dev-key' });

      const shellErrors = await runScript(script(steps, port), env);

      const failures: string[] = [];
      for (const [index, step] of steps.entries()) {
        const output = await readFile(join(out, `${index}.out`), 'utf8').catch(() => '(not run)');
        const code = Number((await readFile(join(out, `${index}.code`), 'utf8').catch(() => 'NaN')).trim());
        if (code !== step.exitCode) {
          failures.push(
            `${step.location}: \`${step.command}\` exited ${code}, not ${step.exitCode}:\n${output}`,
          );
        }
        for (const line of step.expectedLines) {
          if (!holdsLine(output, line)) {
            failures.push(`${step.location}: \`${step.command}\` printed no line "${line}":\n${output}`);
          }
        }
      }
      if (startsOwn) {
        // What the doc starts, the doc stops (the tour's `kill %1`): nothing answers on its port afterwards.
        const answered = await fetch(`http://127.0.0.1:${port}/`, {
          signal: AbortSignal.timeout(2_000),
        }).then(
          () => true,
          () => false,
        );
        if (answered) failures.push(`${file}: the server it started still answers on port ${port}`);
      }
      expect(failures, shellErrors).toEqual([]);
    }, 180_000);
  }
});
