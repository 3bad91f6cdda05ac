import { Writable } from 'node:stream';
import type { ProgressRow } from '../apply/progress-row.js';
import type { CommandContext } from './command-context.js';

type TerminalStream = Writable & { isTTY?: boolean; columns?: number };

/**
 * The last row of a terminal, rewritten in place (a progress line), and a
 * stream for everything else written to that terminal: each line written
 * through `output` first clears the row, so a log line is never glued onto
 * it, and then the row is drawn again below. A write that does not end a
 * line leaves the row cleared until it is next shown.
 */
export class TerminalRow implements ProgressRow {
  readonly #stream: TerminalStream;
  /** The row as drawn; undefined while none is. */
  #line: string | undefined;
  readonly output: TerminalStream;

  constructor(stream: TerminalStream) {
    this.#stream = stream;
    const output: TerminalStream = new Writable({
      decodeStrings: false,
      write: (chunk: Buffer | string, _encoding, callback) => {
        this.#writeAbove(chunk.toString());
        callback();
      },
    });
    Object.defineProperty(output, 'isTTY', { get: () => stream.isTTY, enumerable: true });
    Object.defineProperty(output, 'columns', { get: () => stream.columns, enumerable: true });
    this.output = output;
  }

  get columns(): number | undefined {
    return this.#stream.columns;
  }

  show(line: string): void {
    this.#stream.write(`\r\x1b[K${line}`);
    this.#line = line;
  }

  clear(): void {
    if (this.#line !== undefined) this.#stream.write('\r\x1b[K');
    this.#line = undefined;
  }

  #writeAbove(text: string): void {
    if (this.#line === undefined) {
      this.#stream.write(text);
      return;
    }
    this.#stream.write(`\r\x1b[K${text}`);
    if (text.endsWith('\n')) this.#stream.write(this.#line);
    else this.#line = undefined;
  }
}

/** `ctx` with its stderr writing above `row`. */
export function writingAboveRow(ctx: CommandContext, row: TerminalRow): CommandContext {
  return {
    stdout: ctx.stdout,
    stderr: row.output,
    // A getter, as in run-edgesync.ts: touching stdin sets up a stream that only the confirmation needs.
    get stdin() {
      return ctx.stdin;
    },
    env: ctx.env,
    cwd: ctx.cwd,
    setOutcome: (outcome) => ctx.setOutcome(outcome),
    shutdown: ctx.shutdown,
    ...(ctx.jsonUi === undefined ? {} : { jsonUi: ctx.jsonUi }),
    onExit: (listener) => ctx.onExit(listener),
  };
}
