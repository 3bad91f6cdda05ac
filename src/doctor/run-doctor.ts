import { randomBytes } from 'node:crypto';
import type { EdgeApi } from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';
import type { DoctorLine } from './doctor-line.js';
import { readChecks } from './read-checks.js';
import { probeWrites } from './write-probes.js';

export interface DoctorOptions {
  readonly api: EdgeApi;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly kinds: readonly Kind[];
  /** Milliseconds one read-only check may take. */
  readonly timeoutMs: number;
  readonly probeWrites: boolean;
  readonly probeEdge?: string;
  /** SIGINT: the probes stop, clean up, and the report says so. */
  readonly signal: AbortSignal;
  /** Each line as soon as it is known, so that a long probe shows where it is. */
  readonly onLine?: (line: DoctorLine) => void;
  /** @default 8 random lowercase hex digits */
  readonly word?: string;
}

export interface DoctorReport {
  readonly lines: readonly DoctorLine[];
  /** Every assumption holds (or is unknown): exit 0. */
  readonly ok: boolean;
  readonly interrupted: boolean;
  /** What the probes could not remove or put back; empty when the account is as found. */
  readonly leftBehind: readonly string[];
  /** The probe's word, in every object it made (`edgesync doctor probe WORD`); null when it made none. */
  readonly run: string | null;
}

/**
 * The read-only checks, then, when they all hold and `probeWrites` is set,
 * the write probes: a probe on a service that refuses the key or the
 * version would only fail again, each write spending budget.
 */
export async function runDoctorChecks(options: DoctorOptions): Promise<DoctorReport> {
  const lines: DoctorLine[] = [];
  const emit = (line: DoctorLine): void => {
    lines.push(line);
    options.onLine?.(line);
  };
  const read = await readChecks({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    kinds: options.kinds,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  for (const line of read) emit(line);
  const readOk = read.every((line) => line.verdict !== 'differs');
  if (!options.probeWrites || !readOk || options.signal.aborted) {
    return {
      lines,
      ok: readOk && !options.signal.aborted,
      interrupted: options.signal.aborted,
      leftBehind: [],
      run: null,
    };
  }
  const word = options.word ?? randomBytes(4).toString('hex');
  const probed = await probeWrites({
    api: options.api,
    kinds: options.kinds,
    word,
    ...(options.probeEdge === undefined ? {} : { probeEdge: options.probeEdge }),
    signal: options.signal,
    onLine: emit,
  });
  const ok =
    !probed.interrupted &&
    probed.leftBehind.length === 0 &&
    lines.every((line) => line.verdict !== 'differs');
  return { lines, ok, interrupted: probed.interrupted, leftBehind: probed.leftBehind, run: word };
}
