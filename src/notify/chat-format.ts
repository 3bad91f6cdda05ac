/**
 * How a target renders a notification's text: Slack (and Mattermost,
 * Discord's `/slack` endpoint), Discord, Microsoft Teams, or `json` for a
 * receiver that renders nothing.
 */
export const NOTIFY_FORMATS = ['slack', 'discord', 'teams', 'json'] as const;
export type NotifyFormat = (typeof NOTIFY_FORMATS)[number];

export const DEFAULT_NOTIFY_FORMAT: NotifyFormat = 'slack';

/**
 * Text made safe for a format: every character the format would read as
 * markup (a mention, a link with its own label, emphasis) shown as itself.
 * A notification's text carries values from outside edgesync (an entry's
 * name, a file name, the service's message, an invalid CIDR quoted in an
 * error); none of them may ping a channel or dress a link as another.
 */
export type ChatEscape = (text: string) => string;

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Slack reads mentions (`<!channel>`, `<@U…>`) and links (`<url|label>`) only inside `<…>`: as entities they are text. */
function slackText(text: string): string {
  return text.replace(/[&<>]/g, (character) => ENTITIES[character] as string);
}

/**
 * Discord's markdown: emphasis, spoilers, code, quotes, headings, lists,
 * masked links (`[label](url)`) and mentions (`<@…>`, `<#…>`, `@everyone`)
 * each escaped with a backslash; the body's `allowed_mentions` keeps any
 * mention from pinging as well.
 */
function discordText(text: string): string {
  return text.replace(/[\\*_~`|>#\-[\]()<@:]/g, (character) => `\\${character}`);
}

/** Teams' markdown: link and emphasis characters escaped with a backslash, and its HTML as entities. */
function teamsText(text: string): string {
  return text
    .replace(/[&<>]/g, (character) => ENTITIES[character] as string)
    .replace(/[\\*_~`[\]()#]/g, (character) => `\\${character}`);
}

export const CHAT_ESCAPES: Readonly<Record<NotifyFormat, ChatEscape>> = {
  slack: slackText,
  discord: discordText,
  teams: teamsText,
  json: (text) => text,
};

/**
 * The most characters of text each format takes: Discord refuses content
 * over 2,000; Slack truncates past 40,000; Teams' cards fail near 28 KB.
 */
const TEXT_LIMITS: Readonly<Record<NotifyFormat, number>> = {
  slack: 40_000,
  discord: 2_000,
  teams: 20_000,
  json: 40_000,
};

/** `text` within its format's limit, cut at a line when it can be, with a mark that something is missing. */
export function clipText(text: string, format: NotifyFormat): string {
  const limit = TEXT_LIMITS[format];
  if (text.length <= limit) return text;
  const room = limit - 2;
  const cut = text.lastIndexOf('\n', room);
  return `${text.slice(0, cut > room / 2 ? cut : room)}\n…`;
}

/** The fields of a body that carry the text, as each format's receiver reads them. */
export function chatFields(format: NotifyFormat, text: string): Record<string, unknown> {
  if (format === 'discord') return { content: text, allowed_mentions: { parse: [] } };
  return { text };
}
