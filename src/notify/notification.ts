import { CHAT_ESCAPES, chatFields, clipText, type NotifyFormat } from './chat-format.js';

/**
 * What the daemon tells people about, each a change of state seen once:
 * a condition that starts (failed, refused, invalid, drift found, stuck, an
 * entry stuck, a CA near expiry) and, for most, the end of it.
 */
export const NOTIFICATION_EVENTS = [
  'commit_live',
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
  'deletes_held',
  'deletes_released',
  'daemon_suspended',
  'daemon_resumed',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** How urgent an event is, for a receiver that routes by it (PagerDuty, Opsgenie, a channel per level). */
export const SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * Each event's severity: critical when nothing is reconciled any more,
 * error when a person must act (the manifests, a refusal, a stuck entry, a
 * failure), warning for what changed behind edgesync's back or will stop
 * working, info for a commit gone live and for every condition's end.
 */
export const EVENT_SEVERITY: Readonly<Record<NotificationEvent, Severity>> = {
  commit_live: 'info',
  reconcile_failed: 'error',
  reconcile_refused: 'error',
  reconcile_recovered: 'info',
  manifests_invalid: 'error',
  manifests_valid: 'info',
  drift_found: 'warning',
  drift_resolved: 'info',
  drift_corrected: 'warning',
  ca_expiring: 'warning',
  daemon_stuck: 'critical',
  daemon_recovered: 'info',
  entry_stuck: 'error',
  entry_recovered: 'info',
  deletes_held: 'error',
  deletes_released: 'info',
  daemon_suspended: 'warning',
  daemon_resumed: 'info',
};

/** Which daemon speaks: two daemons of one owner (staging, production) are told apart by their instance and service. */
export interface DaemonIdentity {
  readonly owner: string;
  /** `--instance`; null when not set. */
  readonly instance: string | null;
  /** The host of the Edge Configuration Service the daemon manages (`api.edge.example.com`). */
  readonly service: string;
}

/** One field of a change: its name, and its values when they can be shown (never a secret's). */
export interface ChangedField {
  /** `cidr`, `routes[edghtsrt_…].oidc`. */
  readonly path: string;
  /** What the account held, as shown; absent for a secret, a long or structured value, or a field that did not exist. */
  readonly before?: string;
  /** What Git says, as shown; absent likewise. */
  readonly after?: string;
  /** A secret: named, never shown. */
  readonly sensitive: boolean;
}

/** A change a drift event is about: the object and the fields that differ. */
export interface NotificationChange {
  /** `ip_policy_rules.office`. */
  readonly address: string;
  /** `update`, `create`, `delete`, `put-module`. */
  readonly op: string;
  readonly fields: readonly ChangedField[];
}

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
  readonly severity: Severity;
  readonly identity: DaemonIdentity;
  readonly mode: string;
  /** `--status-page-url`: where a person looks next; null when not set. */
  readonly statusPageUrl: string | null;
  /** The manifests checkout's commit, when the manifests are a git checkout. */
  readonly commit: string | null;
  /** One line a person reads first. */
  readonly summary: string;
  readonly errors: readonly NotificationError[];
  /** What changed, field by field (drift events), the first MAX_CHANGES; empty otherwise. */
  readonly changes: readonly NotificationChange[];
  /** How many changes there were in all. */
  readonly changeCount: number;
  /** RFC 3339. */
  readonly at: string;
}

/** Errors a body lists at most; the count says how many there were. */
const MAX_ERRORS = 20;
/** Changes a body lists at most; `changeCount` says how many there were. */
export const MAX_CHANGES = 20;

/** The changes a drift event lists: the first MAX_CHANGES, and how many there were. */
export interface ObservedChanges {
  readonly list: readonly NotificationChange[];
  readonly total: number;
}

/** `platform-prod/eu-west on api.edge.example.com`: who speaks, as a person reads it. */
export function identityText(identity: DaemonIdentity): string {
  const who = identity.instance === null ? identity.owner : `${identity.owner}/${identity.instance}`;
  return `${who} on ${identity.service}`;
}

/** `cidr 203.0.0.0/16 → 203.0.113.0/24`, `client_secret (sensitive)`, or the field's name alone. */
export function fieldText(field: ChangedField): string {
  if (field.sensitive) return `${field.path} (sensitive)`;
  if (field.before === undefined && field.after === undefined) return field.path;
  return `${field.path} ${field.before ?? '(none)'} → ${field.after ?? '(none)'}`;
}

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
  const changes = notification.changes.slice(0, MAX_CHANGES);
  return [
    `[${notification.severity}] edgesync ${identityText(notification.identity)}: ${notification.summary}`,
    ...(notification.commit === null ? [] : [`commit ${notification.commit.slice(0, 12)}`]),
    ...changes.map(
      (change) =>
        `• ${change.address} (${change.op})${change.fields.length === 0 ? '' : `: ${change.fields.map(fieldText).join('; ')}`}`,
    ),
    ...(notification.changeCount > changes.length
      ? [`… and ${notification.changeCount - changes.length} more changes`]
      : []),
    ...errors.map((error) => {
      const place = placeOf(error);
      return `• ${place === null ? '' : `${place}: `}${error.message}`;
    }),
    ...(notification.errors.length > errors.length
      ? [`… and ${notification.errors.length - errors.length} more`]
      : []),
    ...(notification.statusPageUrl === null ? [] : [`status: ${notification.statusPageUrl}`]),
  ];
}

/** The values as they are, for machines. */
function machineFields(notification: Notification): Record<string, unknown> {
  const errors = notification.errors.slice(0, MAX_ERRORS);
  const changes = notification.changes.slice(0, MAX_CHANGES);
  return {
    event: notification.event,
    severity: notification.severity,
    owner: notification.identity.owner,
    instance: notification.identity.instance,
    service: notification.identity.service,
    mode: notification.mode,
    commit: notification.commit,
    status_page_url: notification.statusPageUrl,
    summary: notification.summary,
    changes: changes.map((change) => ({
      address: change.address,
      op: change.op,
      fields: change.fields.map((field) => ({
        path: field.path,
        sensitive: field.sensitive,
        ...(field.before === undefined ? {} : { before: field.before }),
        ...(field.after === undefined ? {} : { after: field.after }),
      })),
    })),
    change_count: notification.changeCount,
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
  const shown = (text: string | undefined): string | undefined =>
    text === undefined ? undefined : scrub(text);
  return {
    ...notification,
    summary: scrub(notification.summary),
    changes: notification.changes.map((change) => ({
      ...change,
      address: scrub(change.address),
      fields: change.fields.map((field) => {
        const before = shown(field.before);
        const after = shown(field.after);
        return {
          path: scrub(field.path),
          sensitive: field.sensitive,
          ...(before === undefined ? {} : { before }),
          ...(after === undefined ? {} : { after }),
        };
      }),
    })),
    errors: notification.errors.map((error) => ({
      ...error,
      file: error.file === null ? null : scrub(error.file),
      message: scrub(error.message),
    })),
  };
}
