import { readFile } from 'node:fs/promises';
import { EdgesyncError } from '../errors.js';

/**
 * A webhook to post notifications to. Its URL is a secret (Slack's and
 * Teams' carry their token in the path), so everything that is shown of it
 * is `shown`: scheme and host, the rest as `…`.
 */
export interface WebhookTarget {
  readonly url: URL;
  /** `https://hooks.example.com/…`: the only form of the URL logs, `/status` and errors carry. */
  readonly shown: string;
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
export function parseWebhookUrl(text: string, from: string): WebhookTarget {
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
  return { url, shown: shownUrl(url) };
}

/**
 * The webhook URLs of a `--notify-file`: one a line; blank lines and lines
 * starting with `#` are skipped. Errors name the file and line, never the URL.
 */
export function parseWebhookFile(text: string, file: string): WebhookTarget[] {
  const targets: WebhookTarget[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    targets.push(parseWebhookUrl(trimmed, `${file}:${index + 1}`));
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
 * Every target of `--notify` (and EDGESYNC_NOTIFY) and `--notify-file`, in
 * that order, each URL once.
 */
export async function webhookTargets(
  urls: readonly string[],
  file: string | undefined,
): Promise<WebhookTarget[]> {
  const targets = urls.map((url, index) => parseWebhookUrl(url, `--notify (value ${index + 1})`));
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code ?? 'error';
      throw new EdgesyncError('invalid_option', `--notify-file: cannot read ${file} (${code})`, { cause });
    }
    targets.push(...parseWebhookFile(text, file));
  }
  const seen = new Set<string>();
  return targets.filter((target) => !seen.has(target.url.href) && seen.add(target.url.href) !== undefined);
}
