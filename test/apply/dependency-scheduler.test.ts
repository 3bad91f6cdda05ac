import { describe, expect, it } from 'vitest';
import {
  DependencyScheduler,
  type DependencySchedulerHandlers,
  type DependentTask,
} from '../../src/apply/dependency-scheduler.js';

interface FakeTask extends DependentTask {
  /** Rejects instead of resolving. */
  readonly fails?: boolean;
}

function task(key: string, dependsOn: readonly string[] = [], fails = false): FakeTask {
  return { key, dependsOn, fails };
}

/** Handlers that log every call, so a test reads the run as a sequence of events. */
function recorder(perform: (task: FakeTask) => Promise<void> = defaultPerform) {
  const events: string[] = [];
  const handlers: DependencySchedulerHandlers<FakeTask> = {
    perform: async (item) => {
      await perform(item);
      if (item.fails) throw new Error(`${item.key} broke`);
    },
    onStart: (item) => events.push(`start ${item.key}`),
    onDone: (item) => events.push(`done ${item.key}`),
    onFailed: (item, error) => events.push(`failed ${item.key}: ${(error as Error).message}`),
    onSkipped: (item, failed) => events.push(`skipped ${item.key} (${failed.key})`),
  };
  return { events, handlers };
}

async function defaultPerform(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

/** A perform that waits until the test releases the task. */
function gated() {
  const gates = new Map<string, () => void>();
  const started: string[] = [];
  const perform = (item: FakeTask): Promise<void> =>
    new Promise<void>((resolve) => {
      started.push(item.key);
      gates.set(item.key, resolve);
    });
  const release = (key: string): void => gates.get(key)?.();
  return { perform, release, started };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('DependencyScheduler', () => {
  it('starts a task only after every task it depends on is done', async () => {
    const { events, handlers } = recorder();
    const tasks = [task('a'), task('b'), task('c', ['a', 'b']), task('d', ['c'])];

    const run = await new DependencyScheduler(tasks, { ...handlers, concurrency: 4 }).run();

    expect(run.notStarted).toEqual([]);
    const at = (event: string): number => events.indexOf(event);
    expect(at('start c')).toBeGreaterThan(at('done a'));
    expect(at('start c')).toBeGreaterThan(at('done b'));
    expect(at('start d')).toBeGreaterThan(at('done c'));
    expect(events.filter((event) => event.startsWith('done'))).toHaveLength(4);
  });

  it('runs at most `concurrency` tasks at once', async () => {
    const gate = gated();
    const { handlers } = recorder(gate.perform);
    const tasks = ['a', 'b', 'c', 'd', 'e'].map((key) => task(key));
    const scheduler = new DependencyScheduler(tasks, { ...handlers, concurrency: 2 });

    const running = scheduler.run();
    await until(() => gate.started.length === 2);
    const atFirst = { started: [...gate.started], running: scheduler.running };
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      await until(() => gate.started.includes(key));
      gate.release(key);
    }
    await running;

    expect(atFirst).toEqual({ started: ['a', 'b'], running: 2 });
  });

  it('skips every task that depends on a failure, directly or not, once, and runs the others', async () => {
    const { events, handlers } = recorder();
    const tasks = [
      task('broken', [], true),
      task('ok'),
      task('child', ['broken']),
      task('diamond', ['child', 'ok']),
      task('grandchild', ['child']),
      task('independent', ['ok']),
    ];

    const run = await new DependencyScheduler(tasks, handlers).run();

    expect(run.notStarted).toEqual([]);
    expect(events.filter((event) => !event.startsWith('start')).sort()).toEqual(
      [
        'done independent',
        'done ok',
        'failed broken: broken broke',
        'skipped child (broken)',
        'skipped diamond (broken)',
        'skipped grandchild (broken)',
      ].sort(),
    );
  });

  it('starts nothing once the signal aborts, lets running tasks finish and returns the rest as not started', async () => {
    const gate = gated();
    const { events, handlers } = recorder(gate.perform);
    const controller = new AbortController();
    const tasks = [task('a'), task('b'), task('c'), task('d', ['a'])];
    const scheduler = new DependencyScheduler(tasks, {
      ...handlers,
      concurrency: 2,
      signal: controller.signal,
    });

    const running = scheduler.run();
    await until(() => gate.started.length === 2);
    controller.abort();
    gate.release('a');
    gate.release('b');
    const run = await running;

    expect(events).toEqual(['start a', 'start b', 'done a', 'done b']);
    expect(run.notStarted.map((item) => item.key)).toEqual(['c', 'd']);
  });

  it('runs nothing when the signal has already aborted', async () => {
    const { events, handlers } = recorder();

    const run = await new DependencyScheduler([task('a'), task('b', ['a'])], {
      ...handlers,
      signal: AbortSignal.abort(),
    }).run();

    expect(events).toEqual([]);
    expect(run.notStarted.map((item) => item.key)).toEqual(['a', 'b']);
  });

  it.each([
    ['a duplicate key', [task('a'), task('a')], 'two actions with the key "a"'],
    ['a dependency on a later task', [task('a', ['b']), task('b')], '"a" depends on "b"'],
    ['a dependency on nothing', [task('a', ['ghost'])], '"a" depends on "ghost"'],
    ['a task depending on itself', [task('a', ['a'])], '"a" depends on "a"'],
  ])('refuses %s before running anything', (_name, tasks, message) => {
    const { handlers } = recorder();

    expect(() => new DependencyScheduler(tasks, handlers)).toThrow(message);
  });

  it.each([0, 1.5, -1])('refuses concurrency %s', (concurrency) => {
    const { handlers } = recorder();

    expect(() => new DependencyScheduler([task('a')], { ...handlers, concurrency })).toThrow(
      /concurrency: expected a whole number of at least 1/,
    );
  });
});
