import { visibleJson, visibleText } from '../visible-text.js';
import { isPendingId } from './pending-id.js';
import type { Action, Plan } from './plan.js';
import { isSensitiveHash } from './saved-plan.js';

/** What `show` says of a saved plan's requests: they are a claim, never sent as written. */
export const SAVED_REQUESTS_NOTE =
  '`edgesync apply --plan` sends none of them as written: it plans again from the manifests and the account, and sends only what that plan confirms (docs/apply.md).';

/**
 * Every request a saved plan holds, as `show` prints it after the changes:
 * a file's changes are what a person reads and its actions what it claims
 * to send, and the two need not agree in a file someone edited. Secrets (a
 * hash in the file) show as `(sensitive)`, IDs not yet created as
 * `(id from <create key>)`, and user text through visibleJson.
 */
export function* savedRequestsChunks(plan: Plan): Generator<string> {
  yield `\n${requestsHeading(plan)} ${SAVED_REQUESTS_NOTE}\n`;
  for (const action of plan.actions) yield `\n${requestBlock(action)}\n`;
}

/**
 * The same for a pull-request comment, in at most `maxChars` characters: a
 * heading and the note, then as many requests as fit in a fenced block, then
 * how many were left out. Empty when not even the heading fits. `limit`: the
 * whole comment's budget, which the cut line names.
 */
export function savedRequestsMarkdown(
  plan: Plan,
  options: { readonly maxChars: number; readonly limit: number; readonly fullListCommand: string },
): string {
  const { maxChars, limit, fullListCommand } = options;
  const heading = `**${requestsHeading(plan)}** ${SAVED_REQUESTS_NOTE}`;
  const blocks = plan.actions.map(requestBlock);
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(blocks.join('\n')) + 1));
  const cutLine = (left: number): string =>
    `_${left} more request(s) not shown to stay under ${limit.toLocaleString('en-US')} characters: run \`${fullListCommand}\`._`;
  const closing = (left: number): string => `${fence}\n${left > 0 ? `\n${cutLine(left)}\n` : ''}`;
  let text = `\n${heading}\n`;
  if (text.length > maxChars) return '';
  if (blocks.length === 0) return text;
  const opening = `\n${fence}text\n`;
  let shown = 0;
  let body = '';
  for (const block of blocks) {
    const next = `${body}${shown === 0 ? '' : '\n'}${block}\n`;
    const left = blocks.length - shown - 1;
    if (text.length + opening.length + next.length + closing(left).length > maxChars) break;
    body = next;
    shown += 1;
  }
  if (shown === 0) {
    const only = `${text}\n${cutLine(blocks.length)}\n`;
    return only.length <= maxChars ? only : text;
  }
  text += `${opening}${body}${closing(blocks.length - shown)}`;
  return text;
}

function requestsHeading(plan: Plan): string {
  const count = plan.actions.length;
  return count === 0 ? 'This file holds no request.' : `This file holds ${count} request(s).`;
}

function requestBlock(action: Action): string {
  const request = action.request;
  const after = action.dependsOn.length > 0 ? ` (after ${action.dependsOn.join(', ')})` : '';
  const head = `# ${visibleText(action.key)}${visibleText(after)}\n${request.method} ${visibleText(request.path)}`;
  return request.body === undefined ? head : `${head}\n${visibleJson(shownValue(request.body), 2)}`;
}

function shownValue(value: unknown): unknown {
  if (isSensitiveHash(value)) return '(sensitive)';
  if (isPendingId(value)) return `(id from ${value.$createdBy})`;
  if (Array.isArray(value)) return value.map(shownValue);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shownValue(item)]));
  }
  return value;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  return longest;
}
