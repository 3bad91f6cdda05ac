import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { type CompactOffsets, PointerOffsets } from './file-positions.js';
import { ManifestError, type ManifestErrorCode } from './manifest-error.js';
import type { ManifestFile } from './manifest-files.js';
import { parseManifestBytes, readManifestFile } from './parse-manifest-file.js';
import type { ParseOutcome } from './parsed-manifest.js';
import type { FileLocation, SourceLocation } from './source-location.js';

/** Files up to this size are parsed on the calling thread (a few milliseconds) while the load is small. */
export const INLINE_PARSE_BYTES = 256 * 1024;

/**
 * Bytes a load parses on its own thread before it hands the rest to parsing
 * workers. A worker costs about 80 ms to start, and its first parses run
 * unoptimized at a third of the speed: on two busy cores the pool made a
 * load of 10,000 rules (1.5 MB) slower (5.3-5.9 s against 3.8-4.0 s at load
 * average 8), and a load of 100,000 (15 MB) faster and 70-90 MB smaller.
 * `validate` of a few small files never starts one.
 */
export const POOL_START_BYTES = 2 * 1024 * 1024;

/** Most parsing workers of one load: files are independent, and the calling thread still validates and builds. */
export const MAX_PARSE_WORKERS = 3;

/**
 * One worker fewer than the cores, at least one. On two cores under load, a
 * second worker added its heap to the load's peak (after loading 100,000
 * rules 264 MB against 203-216 MB with one; 290-294 MB parsing inline) and
 * no time: the calling thread validates and builds while the worker parses.
 */
function poolSize(): number {
  return Math.max(1, Math.min(MAX_PARSE_WORKERS, availableParallelism() - 1));
}

/**
 * Heap of each worker of the pool, MB: enough for the files it is given
 * (parseHeapMb up to this). A pathological file is refused rather than
 * taking the process down.
 */
export const WORKER_HEAP_MB = 96;

/**
 * Heap a parse of a file of `bytes` is given, MB. Parsing holds the
 * `yaml` Parser's tokens of the whole file (or the composed Document) at
 * once, 40 to 65 times the file's size: measured at the 5 MB limit
 * (5,240,000 bytes, the smallest heap a worker parsed each file with),
 * 208-252 MB for rules (block, flow, with metadata), reserved addresses and
 * HTTPS edges with routes, 35 MB for CAs with inline PEMs, and 319-323 MB
 * for rules that need the Composer (a tab in a comment); 158 MB for the
 * 4.35 MB of 40,000 rules that the fixed 96 MB refused. A file over
 * WORKER_HEAP_MB's share gets a worker of its own with this heap.
 */
export function parseHeapMb(bytes: number): number {
  return Math.max(WORKER_HEAP_MB, HEAP_BASE_MB + Math.ceil((HEAP_MB_PER_MB * bytes) / (1024 * 1024)));
}

/** parseHeapMb's heap per MB of file, MB: the Composer's 62 at 5 MB, with a margin. */
const HEAP_MB_PER_MB = 72;
/** parseHeapMb's heap of an empty file, MB: the worker's modules and a parse's fixed costs. */
const HEAP_BASE_MB = 24;

/**
 * Young generation of each parsing worker, MB. A parse's garbage is short
 * lived; a small nursery keeps each worker's resident memory low (with the
 * default, two workers added about 100 MB to the process's peak at 100,000
 * rules) and costs no parsing time (30 files: the same CPU with 16, 32 or 64 MB).
 */
const WORKER_YOUNG_MB = 16;

/** A ManifestError as it crosses the thread boundary (structured clone keeps no class). */
export interface TransferredError {
  readonly code: ManifestErrorCode;
  readonly location: SourceLocation | FileLocation;
  readonly path: string;
  readonly detail: string;
  readonly notes: readonly string[];
}

export type TransferredOutcome =
  | {
      readonly ok: true;
      readonly manifest: {
        readonly data: unknown;
        readonly positions: {
          readonly file: string;
          readonly lineStarts: Int32Array;
          readonly offsets: CompactOffsets;
        };
      };
    }
  | { readonly ok: false; readonly errors: readonly TransferredError[] };

/** What a parsing worker posts first, once its script has loaded. */
export const WORKER_READY = 'ready';

/** What a parsing worker receives: one file to parse. */
export interface ParseRequest {
  readonly file: ManifestFile;
  readonly bytes: Uint8Array;
}

export function transferOutcome(outcome: ParseOutcome): TransferredOutcome {
  if (outcome.ok) {
    const { data, positions } = outcome.manifest;
    return {
      ok: true,
      manifest: { data, positions: { ...positions, offsets: positions.offsets.compact } },
    };
  }
  return {
    ok: false,
    errors: outcome.errors.map((error) => ({
      code: error.code,
      location:
        error.line === undefined || error.column === undefined
          ? { file: error.file }
          : { file: error.file, line: error.line, column: error.column },
      path: error.path,
      detail: error.detail,
      notes: error.notes,
    })),
  };
}

function receiveOutcome(file: ManifestFile, transferred: TransferredOutcome): ParseOutcome {
  if (transferred.ok) {
    const { data, positions } = transferred.manifest;
    return {
      ok: true,
      manifest: { file, data, positions: { ...positions, offsets: new PointerOffsets(positions.offsets) } },
    };
  }
  return {
    ok: false,
    errors: transferred.errors.map(
      (error) =>
        new ManifestError(error.code, error.location, error.path, error.detail, { notes: error.notes }),
    ),
  };
}

/** A worker that died on a file (out of its `heapMb`, or crashed): that file's error, at its first line. */
function crashOutcome(file: ManifestFile, cause: Error, heapMb: number): ParseOutcome {
  const tooComplex = (cause as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
  return {
    ok: false,
    errors: [
      new ManifestError(
        'file_too_large',
        { file: file.display },
        '',
        tooComplex
          ? `parsing needs more than ${heapMb} MB; split the file or write it out more simply`
          : `cannot parse the file: the parsing worker failed (${cause.message})`,
        { cause },
      ),
    ],
  };
}

const WORKER_SCRIPT = new URL('./parse-worker.js', import.meta.url);

/**
 * How one load parses its files: on the calling thread while the load is
 * small, then also on a pool of worker threads, which parse ahead while the
 * caller validates and builds the files already parsed. The parse's garbage
 * (the YAML tokens and document, about ten times the data) dies in the
 * workers' heaps instead of being promoted in the caller's, and the caller's
 * event loop stays free of the parse of a file over INLINE_PARSE_BYTES (the
 * daemon answers /healthz while a 5 MB file parses). The caller takes the
 * outcomes in file order, so errors and entries are the same whichever
 * thread parsed. A file no worker has been given when the caller wants it
 * is parsed by the caller itself: a worker's start and its first,
 * unoptimized parses never hold the load up, except while runtime V8 flags
 * are set (ParsingOptions.runtimeFlags: the load waits for its workers'
 * isolates once, 40 to 250 ms). `close` ends the workers.
 *
 * From TypeScript sources (tests without a build) the compiled worker script
 * does not exist, and every file is parsed on the calling thread.
 */
export class ManifestParsing {
  #readBytes = 0;
  #pool: ParsePool | undefined;
  /** Workers of their own for files over the pool's heap, made when the first such file is read. */
  #ownWorkers: OwnWorkerParses | undefined;
  /** Until the workers' isolates are up, while runtime flags are set: every `take` waits for it. */
  #workersStarting: Promise<void> | undefined;
  readonly #poolStartBytes: number;
  readonly #callerParses: boolean;
  readonly #runtimeFlags: RuntimeV8Flags | undefined;
  readonly #poolHeapMb: number;

  constructor(options: ParsingOptions = {}) {
    this.#poolStartBytes = options.poolStartBytes ?? POOL_START_BYTES;
    this.#poolHeapMb = options.poolHeapMb ?? WORKER_HEAP_MB;
    this.#callerParses = options.callerParses ?? true;
    this.#runtimeFlags = options.runtimeFlags;
  }

  /** Workers started so far (none for a small load). */
  get workersStarted(): number {
    return (this.#pool?.started ?? 0) + (this.#ownWorkers?.started ?? 0);
  }

  /**
   * Reads one file and, once the load is large, queues its parse on the
   * pool; `take` gives its outcome. Never throws for what the file holds.
   */
  async start(file: ManifestFile): Promise<PendingParse> {
    const read = await readManifestFile(file);
    if (!read.ok) return { take: async () => read };
    const bytes = read.bytes;
    this.#readBytes += bytes.length;
    const heapMb = parseHeapMb(bytes.length);
    if (heapMb > WORKER_HEAP_MB && workerScriptExists()) {
      this.#ownWorkers ??= new OwnWorkerParses(this.#runtimeFlags);
      const job = this.#ownWorkers.queue(file, bytes, heapMb);
      return { take: () => job.take() };
    }
    const large = bytes.length > INLINE_PARSE_BYTES;
    if (
      (this.#pool === undefined && !large && this.#readBytes <= this.#poolStartBytes) ||
      !workerScriptExists()
    ) {
      return {
        take: async () => {
          await this.#workersStarting;
          return parseManifestBytes(file, bytes);
        },
      };
    }
    if (this.#pool === undefined) {
      this.#pool = new ParsePool(poolSize(), this.#runtimeFlags, this.#poolHeapMb);
      if (this.#runtimeFlags?.set()) this.#workersStarting = this.#pool.startAll();
    }
    const job = this.#pool.queue(file, bytes, large || !this.#callerParses);
    return {
      take: async () => {
        await this.#workersStarting;
        return job.take();
      },
    };
  }

  /** Reads and parses one file. */
  async parse(file: ManifestFile): Promise<ParseOutcome> {
    return (await this.start(file)).take();
  }

  /** Ends the workers, if any started: none outlives the load (nor keeps the process alive). */
  async close(): Promise<void> {
    await Promise.all([this.#pool?.close(), this.#ownWorkers?.close()]);
  }
}

/** How a load parses (LoadOptions.parsing); the defaults are what the commands use. */
export interface ParsingOptions {
  /** Bytes read before the pool starts; tests lower it to run the workers on small trees. @default POOL_START_BYTES */
  readonly poolStartBytes?: number;
  /**
   * Whether the calling thread parses queued files no worker has been given
   * yet; tests turn it off so every queued file goes through a worker.
   * @default true
   */
  readonly callerParses?: boolean;
  /**
   * Heap of each worker of the pool, MB; tests lower it so that a file runs
   * out of it quickly. Which files get a worker of their own is still
   * decided by WORKER_HEAP_MB. @default WORKER_HEAP_MB
   */
  readonly poolHeapMb?: number;
  /**
   * V8 flags the process set at run time (cli/heap-growth.ts),
   * which a new isolate may reset: set again once each worker is up. While
   * they are set, the load also waits for its workers' isolates before it
   * parses or builds anything more, so that none of its own allocations
   * happen under the reset flags. @default none
   */
  readonly runtimeFlags?: RuntimeV8Flags;
}

/**
 * Process-wide V8 flags set while the process runs. Node 20's V8 puts
 * `--semi-space-growth-factor` back to 2 when it configures a new isolate's
 * heap (a parsing worker's): the calling thread's young generation then grew
 * from 8 to 32 MB at 100,000 rules during the worker's start, about 100 ms,
 * and stayed there. Node 26's V8 leaves the flag alone.
 */
export interface RuntimeV8Flags {
  /** Whether any is set now. */
  readonly set: () => boolean;
  /** Sets them again, after a new isolate may have reset them. */
  readonly reapply: () => void;
}

/** A file read and maybe queued for a worker. */
export interface PendingParse {
  /** Its outcome: from the worker that parsed it, or parsed here if no worker has been given it. */
  take(): Promise<ParseOutcome>;
}

let workerScriptFound: boolean | undefined;

function workerScriptExists(): boolean {
  workerScriptFound ??= existsSync(fileURLToPath(WORKER_SCRIPT));
  return workerScriptFound;
}

/** One queued file: waiting for a worker, given to one, or parsed. */
class Job {
  readonly file: ManifestFile;
  readonly bytes: Uint8Array;
  /** A file over INLINE_PARSE_BYTES (or callerParses off): always parsed by a worker, so the caller's event loop never waits on it. */
  readonly offThread: boolean;
  /** Given to a worker, which has not answered yet. */
  sent = false;
  #outcome: ParseOutcome | undefined;
  readonly #waiting: ((outcome: ParseOutcome) => void)[] = [];

  constructor(file: ManifestFile, bytes: Uint8Array, offThread: boolean) {
    this.file = file;
    this.bytes = bytes;
    this.offThread = offThread;
  }

  /** Still in the pool's queue: neither given to a worker nor parsed. */
  get queued(): boolean {
    return !this.sent && this.#outcome === undefined;
  }

  /** The caller may parse it now (`take` would). */
  get parsableHere(): boolean {
    return this.queued && !this.offThread;
  }

  take(): Promise<ParseOutcome> {
    if (this.parsableHere) this.parseHere();
    if (this.#outcome !== undefined) return Promise.resolve(this.#outcome);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  parseHere(): void {
    this.settle(parseManifestBytes(this.file, this.bytes));
  }

  settle(outcome: ParseOutcome): void {
    if (this.#outcome !== undefined) return;
    this.sent = false;
    this.#outcome = outcome;
    for (const resolve of this.#waiting.splice(0)) resolve(outcome);
  }
}

/**
 * Files a worker is given before it answers the one it parses: the next one
 * waits in its port, and the worker goes on without waiting for the caller
 * to take its answer (the caller is busy building; at 100,000 rules a
 * worker given one file at a time idled about a second).
 */
const FILES_PER_WORKER = 2;

/**
 * Files over the pool's heap, each parsed by a worker of its own whose heap
 * is sized from the file (parseHeapMb), one after the other: at most one
 * such heap is in use at a time, beside the pool's.
 */
class OwnWorkerParses {
  readonly #runtimeFlags: RuntimeV8Flags | undefined;
  #chain: Promise<void> = Promise.resolve();
  #current: ParsePool | undefined;
  #startedBefore = 0;
  #closed = false;

  constructor(runtimeFlags: RuntimeV8Flags | undefined) {
    this.#runtimeFlags = runtimeFlags;
  }

  get started(): number {
    return this.#startedBefore + (this.#current?.started ?? 0);
  }

  queue(file: ManifestFile, bytes: Uint8Array, heapMb: number): Job {
    const job = new Job(file, bytes, true);
    this.#chain = this.#chain.then(async () => {
      if (this.#closed) {
        job.settle(crashOutcome(file, new Error('the load ended'), heapMb));
        return;
      }
      const pool = new ParsePool(1, this.#runtimeFlags, heapMb);
      this.#current = pool;
      pool.add(job);
      await job.take();
      this.#startedBefore += pool.started;
      this.#current = undefined;
      await pool.close();
    });
    return job;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#current?.close();
    await this.#chain;
  }
}

/**
 * Worker threads that each parse the files they are given in order; a
 * worker that dies fails only the file it was parsing, the first it has not
 * answered, and its other files go back to the queue.
 */
class ParsePool {
  readonly #size: number;
  /** Heap of each worker, MB. */
  readonly #heapMb: number;
  readonly #runtimeFlags: RuntimeV8Flags | undefined;
  /** Files given to each worker and not answered yet, in the order sent: the order it parses them. */
  readonly #given = new Map<Worker, Job[]>();
  /** Workers whose script has loaded: only these are given files, and a failure then is the file's. */
  readonly #ready = new WeakSet<Worker>();
  /** What a worker reported before it exited (its 'exit' comes after its last answers). */
  readonly #failure = new WeakMap<Worker, Error>();
  readonly #queue: Job[] = [];
  // Imported here: a run whose files are all small never loads the worker machinery (start time: docs/performance.md).
  readonly #workerClass = import('node:worker_threads').then((module) => module.Worker);
  #closed = false;
  #started = 0;
  /**
   * A worker could not start (its script failed to load, or the process's
   * flags are refused in a worker, as `--input-type` is): this load parses
   * the rest on the calling thread, as it would without workers.
   */
  #unavailable = false;

  constructor(size: number, runtimeFlags: RuntimeV8Flags | undefined, heapMb = WORKER_HEAP_MB) {
    this.#size = size;
    this.#runtimeFlags = runtimeFlags;
    this.#heapMb = heapMb;
  }

  get started(): number {
    return this.#started;
  }

  /**
   * Starts every worker of the pool at once, instead of one whenever a file
   * finds none ready; resolves once each is up (its isolate exists and its
   * JavaScript runs) or gone.
   */
  async startAll(): Promise<void> {
    const WorkerClass = await this.#workerClass;
    const up: Promise<void>[] = [];
    while (this.#given.size < this.#size && !this.#unavailable && !this.#closed) {
      const worker = this.#startWorker(WorkerClass);
      if (worker === undefined) break;
      up.push(
        new Promise((resolve) => {
          worker.once('online', () => resolve());
          worker.once('exit', () => resolve());
        }),
      );
    }
    await Promise.all(up);
  }

  queue(file: ManifestFile, bytes: Uint8Array, offThread: boolean): Job {
    const job = new Job(file, bytes, offThread);
    this.add(job);
    return job;
  }

  add(job: Job): void {
    this.#queue.push(job);
    void this.#pump();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const workers = [...this.#given.keys()];
    await Promise.all(workers.map((worker) => worker.terminate()));
    for (const job of this.#queue.splice(0)) {
      job.settle(crashOutcome(job.file, new Error('the load ended'), this.#heapMb));
    }
  }

  async #pump(): Promise<void> {
    const WorkerClass = await this.#workerClass;
    while (!this.#closed) {
      const job = this.#nextJob();
      if (job === undefined) return;
      if (this.#unavailable) {
        this.#queue.shift();
        job.parseHere();
        continue;
      }
      const worker = this.#leastBusyReadyWorker();
      if (worker === undefined) {
        if (this.#given.size < this.#size) this.#startWorker(WorkerClass);
        return;
      }
      this.#queue.shift();
      this.#send(worker, job);
    }
  }

  /** The first queued job: the caller may have parsed some itself meanwhile. */
  #nextJob(): Job | undefined {
    while (this.#queue.length > 0 && !(this.#queue[0] as Job).queued) this.#queue.shift();
    return this.#queue[0];
  }

  #leastBusyReadyWorker(): Worker | undefined {
    let found: Worker | undefined;
    let fewest = FILES_PER_WORKER;
    for (const [worker, given] of this.#given) {
      if (this.#ready.has(worker) && given.length < fewest) {
        found = worker;
        fewest = given.length;
      }
    }
    return found;
  }

  #send(worker: Worker, job: Job): void {
    job.sent = true;
    (this.#given.get(worker) as Job[]).push(job);
    const request: ParseRequest = { file: job.file, bytes: job.bytes };
    worker.postMessage(request);
  }

  /** A worker, given files once its script has loaded (until then the caller parses what is queued). */
  #startWorker(WorkerClass: typeof Worker): Worker | undefined {
    let worker: Worker;
    try {
      worker = new WorkerClass(WORKER_SCRIPT, {
        resourceLimits: {
          maxOldGenerationSizeMb: this.#heapMb,
          maxYoungGenerationSizeMb: WORKER_YOUNG_MB,
        },
      });
    } catch {
      this.#unavailable = true;
      void this.#pump();
      return undefined;
    }
    this.#given.set(worker, []);
    this.#started += 1;
    // Its isolate may have reset them, whether it came up or died starting.
    worker.once('online', () => this.#runtimeFlags?.reapply());
    worker.once('exit', () => this.#runtimeFlags?.reapply());
    worker.on('message', (message: TransferredOutcome | typeof WORKER_READY) => {
      if (message === WORKER_READY) {
        this.#ready.add(worker);
      } else {
        const job = this.#given.get(worker)?.shift();
        job?.settle(receiveOutcome(job.file, message));
      }
      void this.#pump();
    });
    worker.on('error', (error: Error) => {
      if (!this.#failure.has(worker)) this.#failure.set(worker, error);
    });
    worker.on('exit', (code: number) => this.#exited(worker, code));
    return worker;
  }

  /**
   * Node delivers a worker's answers before its 'exit': the first file it
   * has not answered is the one it died on. A worker that dies before its
   * script loaded cannot start here: the load parses here from then on.
   */
  #exited(worker: Worker, code: number): void {
    const given = this.#given.get(worker) ?? [];
    this.#given.delete(worker);
    const [parsing, ...waiting] = given;
    // Only a worker whose script loaded is given files: one that dies before says nothing about a file.
    if (!this.#ready.has(worker) && !this.#closed) this.#unavailable = true;
    if (parsing !== undefined) {
      parsing.settle(
        crashOutcome(
          parsing.file,
          this.#failure.get(worker) ?? new Error(`the parsing worker exited with code ${code}`),
          this.#heapMb,
        ),
      );
    }
    for (const job of waiting) {
      if (this.#closed) {
        job.settle(crashOutcome(job.file, new Error('the load ended'), this.#heapMb));
      } else {
        job.sent = false;
      }
    }
    this.#queue.unshift(...waiting.filter((job) => job.queued));
    void this.#pump();
  }
}
