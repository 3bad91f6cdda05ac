import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { executePlan } from '../../src/apply/execute-plan.js';
import { createProgressReporter } from '../../src/apply/progress-reporter.js';
import { createLogger } from '../../src/cli/logger.js';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { createIpPolicy, type Harness, startHarness } from '../apply/apply-harness.js';
import { createRuleAction, handPlan, ruleCidr } from '../apply/hand-plan.js';
import { ROOT } from '../support/edgesync-cli.js';
import { useDaemonHarness } from '../watch/daemon-harness.js';

/** What pino and the logger put on every line: not the event's own fields. */
const LINE_FIELDS = ['level', 'time', 'app', 'pid', 'hostname', 'component', 'msg'];

/** The backticked names in `text`. */
function names(text: string): string[] {
  return [...text.matchAll(/`([a-z_]+)`/g)].map((match) => match[1] ?? '');
}

/** The text between `from` and `to` in `doc`, or a failure naming what is missing. */
function between(doc: string, from: string, to: string): string {
  const start = doc.indexOf(from);
  const end = doc.indexOf(to, start + from.length);
  if (start < 0 || end < 0) throw new Error(`the docs no longer hold "${from}" … "${to}"`);
  return doc.slice(start + from.length, end);
}

interface DocumentedKey {
  readonly name: string;
  /** Documented as present only sometimes ("`refusal` when refused"). */
  readonly optional: boolean;
  readonly keys: readonly DocumentedKey[];
}

/**
 * A list such as "`a`, `b` (`c`, `d` when refused), `e` (below)": names at
 * the top, their keys in the parentheses that follow them.
 */
function documentedKeys(text: string): DocumentedKey[] {
  const top: { name: string; optional: boolean; keys: DocumentedKey[] }[] = [];
  let depth = 0;
  const tokens = text.matchAll(/`([a-z_]+)`( when)?|\(|\)/g);
  for (const [token, name, when] of tokens) {
    if (token === '(') depth += 1;
    else if (token === ')') depth -= 1;
    else if (name !== undefined && depth === 0) top.push({ name, optional: when !== undefined, keys: [] });
    else if (name !== undefined) top.at(-1)?.keys.push({ name, optional: when !== undefined, keys: [] });
  }
  return top;
}

/** Differences between the documented keys and an object's: documented but absent, present but undocumented. */
function differences(
  documented: readonly DocumentedKey[],
  actual: Record<string, unknown>,
  at: string,
): string[] {
  const found: string[] = [];
  for (const key of documented) {
    const value = actual[key.name];
    if (!(key.name in actual)) {
      if (!key.optional) found.push(`${at}${key.name}: documented, not in the output`);
      continue;
    }
    if (key.keys.length > 0 && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      found.push(...differences(key.keys, value as Record<string, unknown>, `${at}${key.name}.`));
    }
    if (key.keys.length > 0 && Array.isArray(value) && typeof value[0] === 'object' && value[0] !== null) {
      found.push(...differences(key.keys, value[0] as Record<string, unknown>, `${at}${key.name}[0].`));
    }
  }
  const documentedNames = new Set(documented.map((key) => key.name));
  for (const name of Object.keys(actual)) {
    if (!documentedNames.has(name)) found.push(`${at}${name}: in the output, not documented`);
  }
  return found;
}

describe('the docs name the fields the output has', () => {
  let harness: Harness | undefined;
  const startDaemon = useDaemonHarness();

  afterEach(async () => {
    await harness?.emulator.close();
    harness = undefined;
  });

  it("docs/apply.md: an action's log line and the progress line", async () => {
    // One line: the prose wraps anywhere.
    const doc = (await readFile(join(ROOT, 'docs/apply.md'), 'utf8')).replace(/\s+/g, ' ');
    const actionText = between(doc, 'at `warn`, with', ')');
    const [always = '', whenKnown = ''] = actionText.split('and when known');
    const progressText = between(doc, '`"msg":"progress"` line says', '(log field names');
    harness = await startHarness();
    const policyId = await createIpPolicy(harness);
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    const logger = createLogger({ format: 'json', destination: stream });
    const reporter = createProgressReporter({ logger, logEveryMs: 0, tickMs: 1 });
    const plan = handPlan([
      createRuleAction('broken', policyId, '10.0.0.0/33'),
      createRuleAction('fine', policyId, ruleCidr(3)),
    ]);

    await executePlan(plan, { api: harness.api, logger, onProgress: reporter.onProgress });
    await new Promise((resolve) => setTimeout(resolve, 20));
    reporter.finish();

    const lines = text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const fieldsOf = (line: Record<string, unknown>): string[] =>
      Object.keys(line).filter((key) => !LINE_FIELDS.includes(key));
    const actionLines = lines.filter(
      (line) => line.msg === 'action finished' || line.msg === 'action not applied',
    );
    expect(actionLines).toHaveLength(2);
    for (const line of actionLines) {
      expect(
        fieldsOf(line)
          .filter((field) => !names(always).includes(field))
          .sort(),
      ).toEqual(
        names(whenKnown)
          .filter((field) => field in line)
          .sort(),
      );
      expect(names(always).filter((field) => !(field in line))).toEqual([]);
    }
    const progress = lines.filter((line) => line.msg === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    for (const line of progress) {
      expect(fieldsOf(line).filter((field) => !names(progressText).includes(field))).toEqual([]);
    }
    const withWait = ['finished', 'total', 'per_second', 'eta_seconds', 'waiting_for_budget_ms'];
    expect(names(progressText)).toEqual(withWait);
  });

  it("docs/operations.md: /status's keys, and those of last_reconcile, last_plan, last_apply, last_error, manifest_errors", async () => {
    const doc = await readFile(join(ROOT, 'docs/operations.md'), 'utf8');
    const documented = documentedKeys(
      between(doc, "| `/status` | JSON, every key snake_case like all of edgesync's JSON:", '|\n'),
    );
    const daemon = await startDaemon({
      emulator: { seed: await loadSeedFile(join(ROOT, 'examples/emulator-seed.yaml')) },
      env: { OIDC_CLIENT_SECRET: 'x' },
      prepare: (root) => cp(join(ROOT, 'examples/manifests'), join(root, 'manifests'), { recursive: true }),
    });
    await daemon.record(1, (record) => record.apply !== null);
    const status = (await daemon.status()) as unknown as Record<string, unknown>;

    expect(documented.map((key) => key.name)).toContain('last_reconcile');
    expect(differences(documented, status, '')).toEqual([]);
  });
});
