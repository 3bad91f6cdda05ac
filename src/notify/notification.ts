import { CHAT_ESCAPES, chatFields, clipText, type NotifyFormat } from './chat-format.js';

/**
 * What the daemon tells people about, each a change of state seen once:
 * a condition that starts (failed, refused, invalid, drift found, stuck, an
 * entry stuck, a CA near expiry) and, for most, the end of it.
 */
export const NOTIFICATION_EVENTS = [
  'reconcile_failed',
  'reconcile_refused',
  'reconcile_recovered',
  'manifests_invalid',
  'manifests_valid',
  'drift_found',
  'drift_resolved',
  'drift_corrected',
  'ca_expiring',
  'daemon_stuck',
  'daemon_recovered',
  'entry_stuck',
  'entry_recovered',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** A problem with its place: a manifest error (`file:line:column`) or one without a place (an apply failure). */
export interface NotificationError {
  readonly file: string | null;
  readonly line: number | null;
  readonly column: number | null;
  readonly message: string;
}

/** One notification, as built from what the daemon saw. */
export interface Notification {
  readonly event: NotificationEvent;
  readonly owner: string;
  readonly mode: string;
  /** The manifests checkout's commit, when the manifests are a git checkout. */
  readonly commit: string | null;
  /** One line a person reads first. */
  readonly summary: string;
  readonly errors: readonly NotificationError[];
  /** RFC 3339. */
  readonly at: string;
}

/** Errors a body lists at most; the count says how many there were. */
const MAX_ERRORS = 20;

/** Where an error is, as `file:line:column` (or less when unknown). */
export function placeOf(error: NotificationError): string | null {
  if (error.file === null) return null;
  if (error.line === null) return error.file;
  return error.column === null
    ? `${error.file}:${error.line}`
    : `${error.file}:${error.line}:${error.column}`;
}

/**
 * The JSON body posted to a target of `format`. The text's fields
 * (`chatFields`: `text`, or Discord's `content`) are what the chat shows:
 * every line is edgesync's words around values from outside (the owner, an
 * entry's name and file, the service's message, the commit), and all of it
 * is escaped for the format (`CHAT_ESCAPES`) after the run's secrets were
 * scrubbed from the values, so that no escape hides a secret from the
 * scrubber. The other fields (snake_case, like all edgesync writes for
 * machines) hold the values as they are, for receivers that route or
 * filter; no chat renders them. One body a notification and a format: a new
 * field goes into `textLines` (what people read) and `machineFields`.
 */
export function webhookBody(notification: Notification, format: NotifyFormat): Record<string, unknown> {
  const asText = CHAT_ESCAPES[format];
  const text = clipText(textLines(notification).map(asText).join('\n'), format);
  return { ...chatFields(format, text), ...machineFields(notification) };
}

/** What a person reads, line by line, before escaping. */
function textLines(notification: Notification): string[] {
  const errors = notification.errors.slice(0, MAX_ERRORS);
  return [
    `edgesync (${notification.owner}): ${notification.summary}`,
    ...(notification.commit === null ? [] : [`commit ${notification.commit.slice(0, 12)}`]),
    ...errors.map((error) => {
      const place = placeOf(error);
      return `• ${place === null ? '' : `${place}: `}${error.message}`;
    }),
    ...(notification.errors.length > errors.length
      ? [`… and ${notification.errors.length - errors.length} more`]
      : []),
  ];
}

/** The values as they are, for machines. */
function machineFields(notification: Notification): Record<string, unknown> {
  const errors = notification.errors.slice(0, MAX_ERRORS);
  return {
    event: notification.event,
    owner: notification.owner,
    mode: notification.mode,
    commit: notification.commit,
    summary: notification.summary,
    errors: errors.map((error) => ({ ...error, location: placeOf(error) })),
    error_count: notification.errors.length,
    at: notification.at,
  };
}

/** `notification` with `scrub` applied to every text it carries from outside. */
export function scrubbedNotification(
  notification: Notification,
  scrub: (text: string) => string,
): Notification {
  return {
    ...notification,
    summary: scrub(notification.summary),
    errors: notification.errors.map((error) => ({
      ...error,
      file: error.file === null ? null : scrub(error.file),
      message: scrub(error.message),
    })),
  };
}
