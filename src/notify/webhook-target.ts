import { EdgesyncError } from '../errors.js';
import { DEFAULT_NOTIFY_FORMAT, NOTIFY_FORMATS, type NotifyFormat } from './chat-format.js';
import { NOTIFICATION_EVENTS, type NotificationEvent } from './notification.js';

/**
 * A webhook to post notifications to. Its URL is a secret (Slack's and
 * Teams' carry their token in the path), so everything that is shown of it
 * is `shown`: scheme and host, the rest as `…`.
 */
export interface WebhookTarget {
  readonly url: URL;
  /** `https://hooks.example.com/…`: the only form of the URL logs, `/status` and errors carry. */
  readonly shown: string;
  /** How the target renders the text, and so how it is escaped (chat-format.ts). */
  readonly format: NotifyFormat;
  /** The events this target gets; null: every event. */
  readonly events: ReadonlySet<NotificationEvent> | null;
}

/**
 * `commit_live,reconcile_failed` as a set of events, or an error naming
 * where it came from and the events there are. An empty list is an error:
 * a target that wants nothing is left out instead.
 */
export function parseEventList(text: string, from: string): ReadonlySet<NotificationEvent> {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(NOTIFICATION_EVENTS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new EdgesyncError(
      'invalid_option',
      `${from}: ${names.length === 0 ? 'no event named' : `unknown event${unknown.length === 1 ? '' : 's'} ${unknown.map((name) => `"${name}"`).join(', ')}`}; expected a comma-separated list of ${NOTIFICATION_EVENTS.join(', ')}`,
    );
  }
  return new Set(names as NotificationEvent[]);
}

/** `scheme://host/…` of a URL: enough to tell targets apart, nothing of a token in its path or query. */
export function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}/…`;
}

/**
 * `text` as a webhook target, or an error that names where it came from
 * (`--notify`, `EDGESYNC_NOTIFY`, `FILE:LINE`) and what is wrong, showing
 * at most the scheme and host of what was given.
 */
export function parseWebhookUrl(
  text: string,
  from: string,
  format: NotifyFormat = DEFAULT_NOTIFY_FORMAT,
  events: ReadonlySet<NotificationEvent> | null = null,
): WebhookTarget {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch (cause) {
    throw new EdgesyncError(
      'invalid_option',
      `${from}: not a URL (${text.trim().length} characters, not shown: a webhook URL is a secret); expected https://host/path`,
      { cause },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EdgesyncError('invalid_option', `${from}: expected an http(s) URL (found ${url.protocol}//…)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new EdgesyncError(
      'invalid_option',
      `${from}: credentials in a webhook URL are not sent (${shownUrl(url)}); put the token in the path or query as the service gives it`,
    );
  }
  return { url, shown: shownUrl(url), format, events };
}

/**
 * The webhook targets of a `--notify-file`: one a line, `[FORMAT] URL
 * [events=EVENT,…]` (`discord https://discord.com/api/webhooks/…
 * events=commit_live,reconcile_failed`; without a format, Slack's; without
 * events, every event); blank lines and lines starting with `#` are
 * skipped. Errors name the file and line, never the URL.
 */
export function parseWebhookFile(text: string, file: string): WebhookTarget[] {
  const targets: WebhookTarget[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const from = `${file}:${index + 1}`;
    const words = trimmed.split(/\s+/);
    const filter = words.length > 1 && words.at(-1)?.startsWith('events=') === true ? words.pop() : undefined;
    const events = filter === undefined ? null : parseEventList(filter.slice('events='.length), from);
    const [first = '', ...rest] = words;
    if (rest.length === 0) {
      targets.push(parseWebhookUrl(first, from, DEFAULT_NOTIFY_FORMAT, events));
      return;
    }
    if (!(NOTIFY_FORMATS as readonly string[]).includes(first) || rest.length > 1) {
      throw new EdgesyncError(
        'invalid_option',
        `${from}: expected "URL" or "FORMAT URL", then "events=EVENT,…" if any, with FORMAT one of ${NOTIFY_FORMATS.join(', ')} (found ${rest.length + 1} words${(NOTIFY_FORMATS as readonly string[]).includes(first) ? '' : `, the first not a format`}; not shown: a webhook URL is a secret)`,
      );
    }
    targets.push(parseWebhookUrl(rest[0] as string, from, first as NotifyFormat, events));
  });
  return targets;
}

/**
 * The parts of a target's URL that a scrubber must know: the whole URL (as
 * typed and as URL writes it), and its path and query when they are long
 * enough to be a token rather than a common word.
 */
export function secretPartsOf(target: WebhookTarget): string[] {
  const parts = [target.url.href, `${target.url.host}${target.url.pathname}${target.url.search}`];
  if (target.url.pathname.length >= 8) parts.push(target.url.pathname);
  if (target.url.search.length >= 8) parts.push(target.url.search.slice(1));
  return parts;
}

/**
 * Every target of `--notify` (and EDGESYNC_NOTIFY, all in `format`, each
 * getting `events`, or every event when null) and of the `--notify-file`'s
 * text (`file` names it), in that order, each URL once.
 */
export function webhookTargets(
  urls: readonly string[],
  format: NotifyFormat,
  file?: { readonly name: string; readonly text: string },
  events: ReadonlySet<NotificationEvent> | null = null,
): WebhookTarget[] {
  const targets = urls.map((url, index) =>
    parseWebhookUrl(url, `--notify (value ${index + 1})`, format, events),
  );
  if (file !== undefined) targets.push(...parseWebhookFile(file.text, file.name));
  const seen = new Set<string>();
  return targets.filter((target) => !seen.has(target.url.href) && seen.add(target.url.href) !== undefined);
}
