import PQueue from 'p-queue';
import { EdgesyncError } from '../errors.js';

/** Anything with a key and the keys of the tasks that must succeed before it runs. */
export interface DependentTask {
  readonly key: string;
  readonly dependsOn: readonly string[];
}

export interface DependencySchedulerHandlers<T extends DependentTask> {
  /** Does the task; resolving counts it done, rejecting counts it failed. */
  perform(task: T): Promise<void>;
  /** Called just before `perform`. */
  onStart?(task: T): void;
  onDone(task: T): void;
  onFailed(task: T, error: unknown): void;
  /** A task that will never run because `failed`, a task it depends on (directly or not), failed. */
  onSkipped(task: T, failed: T): void;
}

export interface DependencySchedulerOptions<T extends DependentTask> extends DependencySchedulerHandlers<T> {
  /** Tasks performed at once. @default 4 */
  readonly concurrency?: number;
  /** Once aborted no task starts; those already started run on (their own signal stops them). */
  readonly signal?: AbortSignal | undefined;
}

/** What a run left undone because the signal stopped it: tasks never started, in the order given. */
export interface SchedulerRun<T> {
  readonly notStarted: readonly T[];
}

/**
 * Runs tasks over a dependency graph: a task starts as soon as every task it
 * depends on is done, at most `concurrency` at a time (p-queue). A failure
 * skips every task that depends on it, directly or not, and nothing else;
 * once the signal has stopped the run, a failure's dependents are left not
 * started instead, like everything else that did not start. Every task given ends in exactly one of `onDone`, `onFailed`, `onSkipped`,
 * or the run's `notStarted`.
 *
 * The graph is checked before anything runs: keys are unique and each
 * dependency names an earlier task, so the graph has no cycle and every task
 * is reachable.
 */
export class DependencyScheduler<T extends DependentTask> {
  readonly #tasks: readonly T[];
  readonly #options: DependencySchedulerOptions<T>;
  readonly #queue: PQueue;
  readonly #dependents = new Map<string, T[]>();
  readonly #unmet = new Map<string, number>();
  /** Keys of tasks that started, were skipped, or finished. */
  readonly #settled = new Set<string>();
  #stopped = false;

  constructor(tasks: readonly T[], options: DependencySchedulerOptions<T>) {
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new EdgesyncError(
        'invalid_option',
        `concurrency: expected a whole number of at least 1 (found ${concurrency})`,
      );
    }
    checkDependencies(tasks);
    this.#tasks = tasks;
    this.#options = options;
    this.#queue = new PQueue({ concurrency });
    for (const task of tasks) {
      const dependencies = new Set(task.dependsOn);
      this.#unmet.set(task.key, dependencies.size);
      for (const dependency of dependencies) {
        this.#dependents.set(dependency, [...(this.#dependents.get(dependency) ?? []), task]);
      }
    }
  }

  /** Tasks being performed right now. */
  get running(): number {
    return this.#queue.pending;
  }

  /** Runs every task that can run; resolves when none is running and none can start. */
  async run(): Promise<SchedulerRun<T>> {
    const { signal } = this.#options;
    const stop = (): void => this.#stop();
    if (signal?.aborted) stop();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      for (const task of this.#tasks) {
        if (this.#unmet.get(task.key) === 0) this.#schedule(task);
      }
      await this.#queue.onIdle();
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    return { notStarted: this.#tasks.filter((task) => !this.#settled.has(task.key)) };
  }

  #stop(): void {
    this.#stopped = true;
    this.#queue.clear();
  }

  #schedule(task: T): void {
    if (this.#stopped) return;
    void this.#queue.add(() => this.#perform(task));
  }

  async #perform(task: T): Promise<void> {
    // A task dequeued after the stop but before the queue was cleared.
    if (this.#stopped) return;
    this.#settled.add(task.key);
    this.#options.onStart?.(task);
    try {
      await this.#options.perform(task);
    } catch (error) {
      this.#options.onFailed(task, error);
      // Once stopped, what depends on a failure is left not started, like everything else not started.
      if (!this.#stopped) this.#skipDependentsOf(task, task);
      return;
    }
    this.#options.onDone(task);
    for (const dependent of this.#dependents.get(task.key) ?? []) {
      const left = (this.#unmet.get(dependent.key) ?? 0) - 1;
      this.#unmet.set(dependent.key, left);
      if (left === 0 && !this.#settled.has(dependent.key)) this.#schedule(dependent);
    }
  }

  #skipDependentsOf(task: T, failed: T): void {
    for (const dependent of this.#dependents.get(task.key) ?? []) {
      if (this.#settled.has(dependent.key)) continue;
      this.#settled.add(dependent.key);
      this.#options.onSkipped(dependent, failed);
      this.#skipDependentsOf(dependent, failed);
    }
  }
}

/** A graph whose dependencies name missing or later tasks cannot be scheduled: refuse it before anything runs. */
function checkDependencies(tasks: readonly DependentTask[]): void {
  const seen = new Set<string>();
  for (const task of tasks) {
    if (seen.has(task.key)) {
      throw new EdgesyncError('plan_invalid', `the plan has two actions with the key "${task.key}"`);
    }
    for (const dependency of task.dependsOn) {
      if (!seen.has(dependency)) {
        throw new EdgesyncError(
          'plan_invalid',
          `action "${task.key}" depends on "${dependency}", which is not an earlier action of the plan`,
        );
      }
    }
    seen.add(task.key);
  }
}
