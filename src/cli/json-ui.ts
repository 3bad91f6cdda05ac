import { VERSION } from '../version.js';
import { visibleJson } from '../visible-text.js';
import { diagnosticOf, type JsonDiagnostic } from './json-diagnostics.js';

/**
 * Version of the machine-readable UI (`apply --format json`, `reconcile
 * --format json`; schemas/ui.schema.json). MAJOR.MINOR, as Terraform's
 * `-json` UI: a minor version adds line types or fields, which a reader
 * ignores when it does not know them; a major one changes or removes what is
 * there.
 */
export const UI_FORMAT_VERSION = '1.0';

export const UI_LEVELS = ['info', 'warn', 'error'] as const;
export type UiLevel = (typeof UI_LEVELS)[number];

/** Where the lines go: stdout, which holds nothing else while the UI is open. */
export interface UiSink {
  write(text: string): unknown;
}

/**
 * One JSON object a line on stdout, Terraform's `-json` UI as the model:
 * every line has `type`, `level`, `message` (what a person would read) and
 * `timestamp`, then the fields of its type. The first line is `version`, the
 * last `summary` with the exit code; in between each command writes its own
 * types (docs/apply.md, "Machine-readable output"). snake_case keys, like
 * all of edgesync's JSON; strings escaped so that no line holds a raw
 * control or bidi character.
 */
export class JsonUi {
  readonly #sink: UiSink;
  readonly #clock: () => Date;
  #summary: { readonly message: string; readonly fields: Readonly<Record<string, unknown>> } = {
    message: 'ended',
    fields: { outcome: 'ended' },
  };
  #ended = false;

  /** Writes the `version` line at once: a reader knows what it reads before anything else. */
  constructor(command: string, sink: UiSink, clock: () => Date = () => new Date()) {
    this.#sink = sink;
    this.#clock = clock;
    this.emit('version', `edgesync ${VERSION}`, {
      format_version: UI_FORMAT_VERSION,
      edgesync: VERSION,
      command,
    });
  }

  /** One line of `type`. */
  emit(
    type: string,
    message: string,
    fields: Readonly<Record<string, unknown>> = {},
    level: UiLevel = 'info',
  ): void {
    if (this.#ended) return;
    const line = { type, level, message, timestamp: this.#clock().toISOString(), ...fields };
    this.#sink.write(`${visibleJson(line)}\n`);
  }

  /** A problem as a `diagnostic` line: an error thrown or reported, a manifest's, a plan's, a refusal. */
  diagnostic(problem: unknown, level: 'warn' | 'error' = 'error'): void {
    const diagnostic: JsonDiagnostic = isDiagnostic(problem) ? problem : diagnosticOf(problem);
    this.emit(
      'diagnostic',
      diagnostic.message,
      { diagnostic: { ...diagnostic, severity: level === 'warn' ? 'warning' : 'error' } },
      level,
    );
  }

  /** An error that ends the command: its `diagnostic` line, and a summary naming its code. */
  fail(error: unknown): void {
    const diagnostic = diagnosticOf(error);
    this.diagnostic(diagnostic);
    this.summarize(diagnostic.message, { outcome: diagnostic.code });
  }

  /** What the last line will say besides the exit code; the command sets it as it ends. */
  summarize(message: string, fields: Readonly<Record<string, unknown>>): void {
    this.#summary = { message, fields };
  }

  /** The `summary` line, with the exit code the run ends with; nothing is written after it. */
  end(exitCode: number): void {
    const { message, fields } = this.#summary;
    this.emit('summary', message, { ...fields, exit_code: exitCode }, exitCode === 0 ? 'info' : 'error');
    this.#ended = true;
  }
}

function isDiagnostic(value: unknown): value is JsonDiagnostic {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Error) &&
    'severity' in value &&
    'code' in value &&
    'message' in value
  );
}
