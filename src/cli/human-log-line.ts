import { visibleText } from '../visible-text.js';

/** Record fields a person does not need on a line: pino's own, and the component that logged it. */
const LEFT_OUT = new Set(['level', 'time', 'app', 'pid', 'hostname', 'msg', 'component', 'err']);

/** The prefix of a line by level: info and below read as plain statements. */
const LEVEL_PREFIX: Readonly<Record<string, string>> = {
  warn: 'warning: ',
  error: 'error: ',
  fatal: 'error: ',
};

/**
 * One pino record (its JSON line) as the line a person reads:
 * `warning: retrying after a dropped connection: GET /ip_policy_rules (attempt 2, wait_ms 800)`.
 * The message first, an error's own message after it, the other fields as
 * `name value` pairs in brackets; nothing is dropped but pino's bookkeeping.
 * A line that is not a record is passed on as it is.
 */
export function humanLogLine(jsonLine: string): string {
  let record: unknown;
  try {
    record = JSON.parse(jsonLine);
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
  }
  if (typeof record !== 'object' || record === null) return `${jsonLine.trimEnd()}\n`;
  const fields = record as Record<string, unknown>;
  const prefix = LEVEL_PREFIX[String(fields.level)] ?? '';
  const error = errorMessage(fields.err);
  const details = Object.entries(fields)
    .filter(([key, value]) => !LEFT_OUT.has(key) && value !== undefined)
    .map(([key, value]) => `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const line = `${prefix}${String(fields.msg ?? '')}${error === undefined ? '' : `: ${error}`}${details.length === 0 ? '' : ` (${details.join(', ')})`}`;
  return `${visibleText(line)}\n`;
}

function errorMessage(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return err === undefined ? undefined : String(err);
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' ? message : undefined;
}
