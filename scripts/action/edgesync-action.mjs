#!/usr/bin/env node
// The logic of action.yml (the repository root), as one script that runs on
// the runner's Node with no dependencies: it runs edgesync, posts or updates
// the pull request's comment, writes the job summary and the step's outputs.
// The steps that need GitHub's servers (artifacts, SARIF upload) stay in
// action.yml. A test runs this script as a process with the files and
// variables a runner provides (GITHUB_EVENT_PATH, GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY) and a local GITHUB_API_URL.
//
//   node scripts/action/edgesync-action.mjs find-reviewed   # on a merge: the pull request and the run that planned it
//   node scripts/action/edgesync-action.mjs run             # validate | plan | apply | wait
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GitHubApi } from './github-api.mjs';

export const COMMANDS = ['validate', 'plan', 'apply', 'wait'];
export const FLOWS = ['daemon-applies', 'ci-applies'];
/** The comment on a pull request that holds its plan, updated on each push. */
export const PLAN_MARKER = '<!-- edgesync-plan -->';
/** The comment that says what became of the merge: live, applied, stale or failed. */
export const MERGE_MARKER = '<!-- edgesync-merge -->';
/** What a comment quotes of a log: its end, where the error is. */
const LOG_TAIL_CHARS = 20_000;
/** What is kept of a command's output, from its end. */
const MAX_OUTPUT_CHARS = 4 * 1024 * 1024;
/**
 * What the rendered plan may take of a comment: GitHub takes 65,536
 * characters; the whole comment (marker and heading included) stays under
 * 60,000, as `show` keeps its own output by default.
 */
const PLAN_MAX_CHARS = 59_000;

class ActionError extends Error {}

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {string} name input name as action.yml spells it (`daemon-url`)
 * @param {string} [fallback]
 */
function input(env, name, fallback = '') {
  const value = env[`INPUT_${name.replace(/-/g, '_').toUpperCase()}`]?.trim() ?? '';
  return value === '' ? fallback : value;
}

/** The inputs, checked once: each bad one is named with what was expected. */
export function readInputs(env) {
  const command = input(env, 'command');
  if (!COMMANDS.includes(command)) {
    throw new ActionError(`input command: expected one of ${COMMANDS.join(', ')} (found "${command}")`);
  }
  const flow = input(env, 'flow', 'daemon-applies');
  if (!FLOWS.includes(flow)) {
    throw new ActionError(`input flow: expected one of ${FLOWS.join(', ')} (found "${flow}")`);
  }
  const inputs = {
    command,
    flow,
    manifests: input(env, 'manifests', 'manifests'),
    owner: input(env, 'owner', 'default'),
    daemonUrl: input(env, 'daemon-url'),
    statusToken: input(env, 'status-token'),
    instance: input(env, 'instance'),
    waitTimeout: input(env, 'wait-timeout', '10m'),
    planDir: input(env, 'plan-dir', 'edgesync-plan'),
    cli: input(env, 'cli'),
    image: input(env, 'image', 'ghcr.io/edgesync/edgesync:0.1.0'),
    pull: input(env, 'pull'),
    planKey: input(env, 'plan-key'),
  };
  if (command === 'apply' && flow === 'daemon-applies') {
    throw new ActionError(
      'command apply with flow daemon-applies: in that flow the daemon applies each merged commit and the merge job waits for it (command: wait); set flow: ci-applies to apply from CI (and run any daemon with --mode observe)',
    );
  }
  return inputs;
}

/** One `key=value` (or multi-line) output for the step, as GITHUB_OUTPUT takes them. */
function setOutput(env, key, value) {
  if (!env.GITHUB_OUTPUT) return;
  const text = String(value);
  if (!text.includes('\n')) appendFileSync(env.GITHUB_OUTPUT, `${key}=${text}\n`);
  else {
    const delimiter = `EOF_${randomUUID()}`;
    appendFileSync(env.GITHUB_OUTPUT, `${key}<<${delimiter}\n${text}\n${delimiter}\n`);
  }
}

function writeSummary(env, markdown) {
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, `${markdown}\n`);
}

function readEvent(env) {
  if (!env.GITHUB_EVENT_PATH || !existsSync(env.GITHUB_EVENT_PATH)) return {};
  return JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
}

/** The last `chars` characters of `text`, cut at a line. */
function tail(text, chars = LOG_TAIL_CHARS) {
  if (text.length <= chars) return text;
  const cut = text.slice(-chars);
  return `…\n${cut.slice(cut.indexOf('\n') + 1)}`;
}

/** A fenced block that no text inside can close early. */
export function fenced(text) {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text.replace(/\n+$/, '')}\n${fence}`;
}

/**
 * The plan key of input `plan-key` (a secret), as the file `plan --out` and
 * `apply --plan` read (EDGESYNC_PLAN_KEY_FILE): written once, readable by
 * the runner's user only, outside the checkout (never part of an artifact).
 * A key file the step's env already names is used as it is.
 */
function withPlanKeyFile(inputs, env) {
  if (inputs.planKey === '' || env.EDGESYNC_PLAN_KEY_FILE) return env;
  const file = join(env.RUNNER_TEMP || tmpdir(), `edgesync-plan-${randomUUID()}.key`);
  writeFileSync(file, inputs.planKey, { mode: 0o600, flag: 'wx' });
  return { ...env, EDGESYNC_PLAN_KEY_FILE: file };
}

/**
 * How edgesync runs: `cli` as a command line (`npx edgesync`, a path), or
 * the release image through Docker, with the checkout mounted at its own
 * path (so that file names mean the same inside), each of `mounts` read-only
 * at its own path too (the token file of `wait`), and the host network (so
 * that a daemon's address means the same too).
 */
function edgesyncCommand(inputs, env, mounts = []) {
  if (inputs.cli !== '') {
    const [file, ...args] = inputs.cli.split(/\s+/);
    return { file, args };
  }
  const cwd = process.cwd();
  const passed = Object.keys(env).filter((name) =>
    /^(EDGE_API_URL|EDGE_API_KEY|EDGESYNC_\w+|NO_COLOR)$/.test(name),
  );
  const user =
    typeof process.getuid === 'function' ? [`--user`, `${process.getuid()}:${process.getgid()}`] : [];
  return {
    file: 'docker',
    args: [
      'run',
      '--rm',
      '--network',
      'host',
      ...user,
      '-v',
      `${cwd}:${cwd}`,
      // The plan key lives outside the checkout: mounted at its own path, read-only.
      ...(env.EDGESYNC_PLAN_KEY_FILE
        ? ['-v', `${env.EDGESYNC_PLAN_KEY_FILE}:${env.EDGESYNC_PLAN_KEY_FILE}:ro`]
        : []),
      ...mounts.flatMap((path) => ['-v', `${path}:${path}:ro`]),
      '-w',
      cwd,
      ...passed.flatMap((name) => ['-e', name]),
      inputs.image,
    ],
  };
}

/**
 * Runs `edgesync ARGS`; its output goes to the job's log as it comes and is
 * kept (the end of it) for the comment.
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
function runEdgesync(inputs, env, args, { quiet = false, mounts = [] } = {}) {
  const { file, args: before } = edgesyncCommand(inputs, env, mounts);
  process.stderr.write(`$ edgesync ${args.join(' ')}\n`);
  return new Promise((resolvePromise) => {
    // edgesync needs no GitHub token, the key only as EDGE_API_KEY, the plan key only as its file.
    const {
      GITHUB_TOKEN: _token,
      INPUT_API_KEY: _key,
      INPUT_GITHUB_TOKEN: _input,
      INPUT_PLAN_KEY: _planKey,
      INPUT_STATUS_TOKEN: _statusToken,
      ...childEnv
    } = env;
    const child = spawn(file, [...before, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      if (!quiet) process.stdout.write(chunk);
      stdout = (stdout + chunk.toString('utf8')).slice(-MAX_OUTPUT_CHARS);
    });
    child.stderr.on('data', (chunk) => {
      process.stderr.write(chunk);
      stderr = (stderr + chunk.toString('utf8')).slice(-MAX_OUTPUT_CHARS);
    });
    child.on('error', (error) => {
      stderr += `could not run ${file}: ${error.message}\n`;
    });
    child.on('close', (code) => resolvePromise({ code: code ?? 1, stdout, stderr }));
  });
}

function gitHub(env) {
  if (!env.GITHUB_TOKEN || !env.GITHUB_REPOSITORY) return null;
  return new GitHubApi({
    apiUrl: env.GITHUB_API_URL || 'https://api.github.com',
    token: env.GITHUB_TOKEN,
    repository: env.GITHUB_REPOSITORY,
  });
}

/** Posts (or updates) the comment on `pull`, when there is one and a token; the summary gets it either way. */
async function tell(env, pull, marker, markdown) {
  writeSummary(env, markdown);
  const api = gitHub(env);
  if (pull === null || api === null) return;
  const how = await api.upsertComment(pull, marker, markdown);
  process.stderr.write(`edgesync action: comment ${how} on #${pull}\n`);
}

function runLink(env) {
  if (!env.GITHUB_SERVER_URL || !env.GITHUB_REPOSITORY || !env.GITHUB_RUN_ID) return 'the run';
  return `[the run](${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID})`;
}

async function validate(inputs, env) {
  const text = await runEdgesync(inputs, env, ['validate', inputs.manifests]);
  const sarif = await runEdgesync(inputs, env, ['validate', inputs.manifests, '--format', 'sarif'], {
    quiet: true,
  });
  if (sarif.stdout.trim() !== '') {
    writeFileSync('edgesync.sarif', sarif.stdout);
    setOutput(env, 'sarif', 'edgesync.sarif');
  }
  setOutput(env, 'exitcode', text.code);
  setOutput(env, 'result', text.code === 0 ? 'valid' : 'invalid');
  writeSummary(
    env,
    text.code === 0
      ? `### edgesync validate: valid\n\n${fenced(text.stdout || text.stderr)}`
      : `### edgesync validate failed (exit ${text.code})\n\n${fenced(tail(text.stderr + text.stdout))}`,
  );
  return text.code === 0 ? 0 : 1;
}

async function plan(inputs, env) {
  const event = readEvent(env);
  const pull = Number(event.pull_request?.number ?? inputs.pull) || null;
  const sha = String(event.pull_request?.head?.sha ?? env.GITHUB_SHA ?? '');
  mkdirSync(inputs.planDir, { recursive: true });
  const file = join(inputs.planDir, 'plan.json');
  const made = await runEdgesync(inputs, env, [
    'plan',
    inputs.manifests,
    '--owner',
    inputs.owner,
    '--out',
    file,
    '--detailed-exitcode',
  ]);
  let body;
  if (made.code === 1 || !existsSync(file)) {
    body = `### edgesync plan failed (exit ${made.code})\n\n${fenced(tail(made.stderr + made.stdout))}`;
  } else {
    const shown = await runEdgesync(
      inputs,
      env,
      ['show', file, '--format', 'markdown', '--max-chars', String(PLAN_MAX_CHARS)],
      { quiet: true },
    );
    body =
      shown.code === 0
        ? shown.stdout
        : `### edgesync show failed (exit ${shown.code})\n\n${fenced(tail(shown.stderr))}`;
  }
  const onMerge =
    inputs.flow === 'daemon-applies'
      ? 'On merge the daemon applies the merged commit, and the merge job says here when it is live.'
      : 'On merge this exact plan is applied (`apply --plan`), checked again against the manifests and the account.';
  await tell(env, pull, PLAN_MARKER, `Plan of \`${sha.slice(0, 7)}\`. ${onMerge}\n\n${body}`);
  const saved = (made.code === 0 || made.code === 2) && existsSync(file);
  setOutput(env, 'exitcode', made.code);
  setOutput(env, 'saved', saved && inputs.flow === 'ci-applies' ? 'true' : 'false');
  setOutput(
    env,
    'result',
    made.code === 2 ? 'changes' : made.code === 0 ? 'no-changes' : made.code === 4 ? 'refused' : 'failed',
  );
  return made.code === 0 || made.code === 2 ? 0 : 1;
}

async function apply(inputs, env) {
  const dispatched = env.GITHUB_EVENT_NAME === 'workflow_dispatch';
  const pull = Number(inputs.pull) || null;
  const sha = String(env.GITHUB_SHA ?? '');
  const file = join(inputs.planDir, 'plan.json');
  // Every command's output is added to the log, never written over: the comment quotes what really failed.
  let log = '';
  const finish = async (code, result, markdown) => {
    setOutput(env, 'exitcode', code);
    setOutput(env, 'result', result);
    await tell(env, pull, MERGE_MARKER, markdown);
    return code === 0 ? 0 : 1;
  };
  if (dispatched) {
    // By hand (behind the environment's reviewers): plan now, and apply exactly that plan.
    mkdirSync(inputs.planDir, { recursive: true });
    const made = await runEdgesync(inputs, env, [
      'plan',
      inputs.manifests,
      '--owner',
      inputs.owner,
      '--out',
      file,
    ]);
    log += made.stderr + made.stdout;
    if (made.code !== 0 && made.code !== 2) {
      return finish(
        made.code,
        'failed',
        `### edgesync plan failed (exit ${made.code}); nothing applied\n\nSee ${runLink(env)}.\n\n${fenced(tail(log))}`,
      );
    }
  }
  if (!existsSync(file)) {
    return finish(
      3,
      'no-plan',
      `### edgesync: no reviewed plan for \`${sha.slice(0, 7)}\`; nothing applied\n\nNo successful plan was found on the merged pull request's last commit (or no merged pull request for this commit). Run the **edgesync** workflow by hand (workflow_dispatch) to plan and apply, behind the environment's reviewers.`,
    );
  }
  const token = statusTokenArguments(inputs, env);
  let applied;
  try {
    applied = await runEdgesync(
      inputs,
      env,
      [
        'apply',
        '--plan',
        file,
        inputs.manifests,
        '--owner',
        inputs.owner,
        '--yes',
        ...(inputs.daemonUrl === '' ? [] : ['--daemon-url', inputs.daemonUrl, ...token.args]),
      ],
      { mounts: token.mounts },
    );
  } finally {
    token.cleanup();
  }
  log += applied.stderr + applied.stdout;
  if (applied.code === 0) {
    const already = /^Already applied: /m.test(applied.stdout);
    return finish(
      0,
      already ? 'already-applied' : 'applied',
      `### edgesync: \`${sha.slice(0, 7)}\` is live${already ? ' (already applied: nothing was sent)' : ''}\n\n${fenced(tail(applied.stdout + applied.stderr, 4000))}`,
    );
  }
  if (applied.code === 3) {
    // Stale: what would be applied now is not what was reviewed. Show the plan as it stands; apply nothing.
    const replanFile = join(inputs.planDir, 'replan.json');
    const replan = await runEdgesync(inputs, env, [
      'plan',
      inputs.manifests,
      '--owner',
      inputs.owner,
      '--out',
      replanFile,
    ]);
    log += replan.stderr;
    const shown =
      replan.code === 0 || replan.code === 2
        ? await runEdgesync(
            inputs,
            env,
            ['show', replanFile, '--format', 'markdown', '--max-chars', '40000'],
            {
              quiet: true,
            },
          )
        : { code: replan.code, stdout: '', stderr: replan.stderr };
    return finish(
      3,
      'stale',
      `### edgesync: the plan changed since review — nothing was applied\n\nThe account or the manifests moved after the plan on this pull request was made, so \`apply --plan\` refused it (exit 3):\n\n${fenced(tail(applied.stderr, 6000))}\n\nThe plan as it stands now is below; once reviewed, apply it by running the **edgesync** workflow by hand (${runLink(env)}).\n\n${shown.code === 0 ? shown.stdout : fenced(tail(shown.stderr, 6000))}`,
    );
  }
  const what = applied.code === 4 ? 'refused' : 'failed';
  return finish(
    applied.code,
    what,
    `### edgesync apply ${what} (exit ${applied.code})\n\nSee ${runLink(env)}. Actions already done stay done; the log ends with the error:\n\n${fenced(tail(log))}`,
  );
}

/**
 * Input `status-token` (a secret) as the file `--status-token-file` reads,
 * for a daemon whose `/status` asks for it: a file of this job's own, mode
 * 0600, outside the checkout, removed by `cleanup`; nothing without
 * daemon-url or the input.
 * @returns {{ args: string[], mounts: string[], cleanup: () => void }}
 */
function statusTokenArguments(inputs, env) {
  if (inputs.daemonUrl === '' || inputs.statusToken === '') {
    return { args: [], mounts: [], cleanup: () => undefined };
  }
  const dir = mkdtempSync(join(env.RUNNER_TEMP || tmpdir(), 'edgesync-status-token-'));
  const file = join(dir, 'status-token');
  writeFileSync(file, inputs.statusToken, { mode: 0o600, flag: 'wx' });
  return {
    args: ['--status-token-file', file],
    mounts: [dir],
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * How `wait` asks: through the commit status the daemon posts to GitHub
 * (`watch --commit-status github`), which needs no route from the runner to
 * the daemon, only the job's token with `statuses: read`; or, when input
 * `daemon-url` is given, the daemon's own `/status`.
 * @returns {{ args: string[], mounts: string[], cleanup: () => void }}
 */
function waitArguments(inputs, env, sha) {
  const common = ['--wait-commit', sha, '--wait-timeout', inputs.waitTimeout, '--format', 'json'];
  if (inputs.daemonUrl !== '') {
    const token = statusTokenArguments(inputs, env);
    return {
      args: ['status', '--daemon-url', inputs.daemonUrl, ...token.args, ...common],
      mounts: token.mounts,
      cleanup: token.cleanup,
    };
  }
  if (!env.GITHUB_TOKEN || !env.GITHUB_REPOSITORY) {
    throw new ActionError(
      'command wait reads the commit status edgesync/<owner> that the daemon posts (watch --commit-status github): it needs input github-token with permissions statuses: read; or give input daemon-url to ask the daemon itself',
    );
  }
  // The token reaches edgesync as a file of this job's own, removed when the wait ends.
  const dir = mkdtempSync(join(env.RUNNER_TEMP || tmpdir(), 'edgesync-wait-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, env.GITHUB_TOKEN, { mode: 0o600 });
  return {
    args: [
      'status',
      '--commit-status',
      'github',
      '--commit-status-api-url',
      env.GITHUB_API_URL || 'https://api.github.com',
      '--commit-status-repo',
      env.GITHUB_REPOSITORY,
      '--commit-status-token-file',
      tokenFile,
      '--owner',
      inputs.owner,
      ...(inputs.instance === '' ? [] : ['--instance', inputs.instance]),
      ...common,
    ],
    mounts: [dir],
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function wait(inputs, env) {
  const pull = Number(inputs.pull) || null;
  const sha = String(env.GITHUB_SHA ?? '');
  const how = waitArguments(inputs, env, sha);
  let waited;
  try {
    waited = await runEdgesync(inputs, env, how.args, { quiet: true, mounts: how.mounts });
  } finally {
    how.cleanup();
  }
  let report = null;
  try {
    report = JSON.parse(waited.stdout);
  } catch {
    report = null;
  }
  const short = sha.slice(0, 7);
  const result = report?.result ?? 'failed';
  const details = Array.isArray(report?.details) ? report.details.map(String) : [];
  const status = report?.commit_status ?? null;
  setOutput(env, 'exitcode', waited.code);
  setOutput(env, 'result', result);
  const whose =
    status === null
      ? "`edgesync status --daemon-url URL` shows the daemon's view"
      : `the commit status \`${status.context}\` links to the daemon's status page when it has one`;
  let markdown;
  if (waited.code === 0 && result === 'live') {
    markdown =
      status === null
        ? `### edgesync: \`${short}\` is live\n\nThe daemon (owner \`${report.status?.owner}\`) reports live commit \`${String(report.live_commit).slice(0, 7)}\`, in sync with no entry skipped.`
        : `### edgesync: \`${short}\` is live\n\nThe daemon's commit status \`${status.context}\` on \`${String(status.commit).slice(0, 7)}\`: ${status.description}.`;
  } else if (result === 'timeout') {
    markdown = `### edgesync: \`${short}\` is not live after ${inputs.waitTimeout}\n\n${fenced([report?.reason ?? '', ...details].join('\n'))}\n\nSee ${runLink(env)}; ${whose}.`;
  } else if (result === 'suspended') {
    markdown = `### edgesync: \`${short}\` is not live: the daemon is suspended\n\n${fenced(report?.reason ?? '')}\n\nNothing is applied until someone runs \`edgesync resume\`. See ${runLink(env)}.`;
  } else {
    const text =
      report === null ? tail(waited.stderr + waited.stdout) : [report.reason ?? '', ...details].join('\n');
    const what = result === 'refused' ? 'could not be waited for' : 'failed on the daemon';
    markdown = `### edgesync: \`${short}\` ${what} (exit ${waited.code})\n\n${fenced(text)}\n\nSee ${runLink(env)}.`;
  }
  await tell(env, pull, MERGE_MARKER, markdown);
  return waited.code === 0 ? 0 : 1;
}

/** On a merge (push): the merged pull request and the successful run that planned its head commit. */
async function findReviewed(env) {
  const api = gitHub(env);
  if (api === null) throw new ActionError('find-reviewed needs GITHUB_TOKEN and GITHUB_REPOSITORY');
  const found = await api.reviewedPlan(
    env.GITHUB_SHA ?? '',
    env.GITHUB_REF_NAME ?? 'main',
    env.GITHUB_RUN_ID ?? '',
  );
  if (found.pull === null) process.stderr.write(`::warning::no merged pull request for ${env.GITHUB_SHA}\n`);
  else if (found.planRunId === null) {
    process.stderr.write(`::warning::no successful plan of ${found.head} on #${found.pull}\n`);
  }
  setOutput(env, 'pull', found.pull ?? '');
  setOutput(env, 'run-id', found.planRunId ?? '');
  return 0;
}

/** @returns {Promise<number>} the exit code */
export async function main(phase, env) {
  try {
    if (phase === 'find-reviewed') return await findReviewed(env);
    if (phase !== 'run') throw new ActionError(`expected find-reviewed or run (found "${phase ?? ''}")`);
    const inputs = readInputs(env);
    if (inputs.command === 'validate') return await validate(inputs, env);
    if (inputs.command === 'plan') return await plan(inputs, withPlanKeyFile(inputs, env));
    if (inputs.command === 'apply') return await apply(inputs, withPlanKeyFile(inputs, env));
    return await wait(inputs, env);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`::error::edgesync action: ${message.replace(/\r?\n/g, ' ')}\n`);
    writeSummary(env, `### edgesync action failed\n\n${fenced(message)}`);
    return 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv[2], process.env);
}
