import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_CLI } from '../support/built-cli.js';
import type { FakeGitHub } from './fake-github.js';

export const ACTION_SCRIPT = join(
  import.meta.dirname,
  '..',
  '..',
  'scripts',
  'action',
  'edgesync-action.mjs',
);

export interface ActionRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** What the step wrote to GITHUB_OUTPUT. */
  readonly outputs: Record<string, string>;
  /** What it wrote to GITHUB_STEP_SUMMARY. */
  readonly summary: string;
}

export interface ActionStep {
  readonly phase: 'find-reviewed' | 'run';
  /** action.yml's inputs, by their names there (`daemon-url`). */
  readonly inputs?: Readonly<Record<string, string>>;
  readonly eventName: 'pull_request' | 'push' | 'workflow_dispatch';
  readonly event?: unknown;
  readonly sha: string;
  readonly cwd: string;
  /** EDGE_API_URL, EDGE_API_KEY and any other variable of the step. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Runs the action's script as a runner would: the `GITHUB_*` variables, an
 * event payload file, fresh `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY` files,
 * `INPUT_*` as action.yml sets them, and edgesync as the built CLI (input
 * `cli`) instead of the image.
 */
export async function runAction(github: FakeGitHub, step: ActionStep): Promise<ActionRun> {
  const scratch = await mkdtemp(join(tmpdir(), 'edgesync-action-step-'));
  const eventPath = join(scratch, 'event.json');
  const output = join(scratch, 'output');
  const summary = join(scratch, 'summary.md');
  await writeFile(eventPath, JSON.stringify(step.event ?? {}));
  await writeFile(output, '');
  await writeFile(summary, '');
  const inputs = Object.fromEntries(
    Object.entries({ cli: `${process.execPath} ${BUILT_CLI}`, ...step.inputs }).map(([name, value]) => [
      `INPUT_${name.replace(/-/g, '_').toUpperCase()}`,
      value,
    ]),
  );
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: scratch,
    NO_COLOR: '1',
    // The emulator here has no rate limit: plan and apply get a budget that does not slow the test.
    EDGESYNC_RATE_LIMIT: '100000/1s',
    GITHUB_EVENT_NAME: step.eventName,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: step.sha,
    GITHUB_REF_NAME: 'main',
    GITHUB_REPOSITORY: github.repository,
    GITHUB_API_URL: github.url,
    GITHUB_SERVER_URL: 'https://github.example',
    GITHUB_RUN_ID: '9001',
    GITHUB_TOKEN: github.token,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summary,
    ...inputs,
    ...step.env,
  };
  const ran = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [ACTION_SCRIPT, step.phase],
      { cwd: step.cwd, env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1,
          stdout,
          stderr,
        });
      },
    );
  });
  return {
    ...ran,
    outputs: parseOutputs(await readFile(output, 'utf8')),
    summary: await readFile(summary, 'utf8'),
  };
}

/** GITHUB_OUTPUT's `key=value` lines and `key<<DELIMITER` blocks. */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const block = /^([\w-]+)<<(\S+)$/.exec(line);
    if (block) {
      const end = lines.indexOf(block[2] ?? '', index + 1);
      outputs[block[1] ?? ''] = lines.slice(index + 1, end).join('\n');
      index = end;
    } else if (line.includes('='))
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return outputs;
}
