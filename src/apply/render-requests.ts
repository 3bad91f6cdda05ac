import type { ApiRequest } from '../api/edge-api.js';
import { maskPointers } from '../plan/mask-pointers.js';
import { isPendingId } from '../plan/pending-id.js';
import type { Action, Plan } from '../plan/plan.js';

/**
 * `--dry-run`: the requests the plan would send, in order, one block per
 * action. Secrets show as `(sensitive)` and IDs not yet created as
 * `(id from <create key>)`.
 */
export function renderRequests(plan: Plan): string {
  return [...requestsChunks(plan)].join('');
}

/** The text of `renderRequests` one action's block at a time, for a command to write as it goes. */
export function* requestsChunks(plan: Plan): Generator<string> {
  if (plan.actions.length === 0) {
    yield 'No requests would be sent.\n';
    return;
  }
  for (const [index, action] of plan.actions.entries()) {
    const head = `# ${action.key}${action.dependsOn.length > 0 ? ` (after ${action.dependsOn.join(', ')})` : ''}`;
    // Read once: an EntryCreate makes its request again on each read.
    const request = action.request;
    const line = `${request.method} ${request.path}`;
    const body =
      request.body === undefined ? '' : `\n${JSON.stringify(displayBody(action, request), null, 2)}`;
    yield `${index === 0 ? '' : '\n\n'}${head}\n${line}${body}`;
  }
  yield '\n';
}

/** The request an action would send, as it may be shown: secrets masked, IDs not yet created named. */
export function displayRequest(action: Action): { method: string; path: string; body?: unknown } {
  // Read once: an EntryCreate makes its request again on each read.
  const request = action.request;
  return {
    method: request.method,
    path: request.path,
    ...(request.body === undefined ? {} : { body: displayBody(action, request) }),
  };
}

/** The action's body as it may be shown: secrets masked, pending IDs named. */
function displayBody(action: Action, request: ApiRequest): unknown {
  const masked = maskPointers(request.body, action.sensitivePaths);
  return namePendingIds(masked);
}

function namePendingIds(value: unknown): unknown {
  if (isPendingId(value)) return `(id from ${value.$createdBy})`;
  if (Array.isArray(value)) return value.map(namePendingIds);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, namePendingIds(item)]));
  }
  return value;
}
