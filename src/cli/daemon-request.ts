import { EdgesyncError } from '../errors.js';
import { readPeer } from '../peer/read-peer.js';
import { daemonAnswer, MAX_STATUS_BYTES } from './status-read.js';

/** One exchange with the daemon, read whole within `deadlineMs` (connecting, headers and body) or ended by `shutdown`. */
export async function daemonCall(
  base: URL,
  request: {
    readonly method: 'GET' | 'POST';
    readonly path: string;
    readonly headers?: Record<string, string>;
  },
  shutdown: AbortSignal,
  deadlineMs: number,
): Promise<{ readonly status: number; readonly text: string }> {
  const answer = await readPeer(
    {
      method: request.method,
      url: new URL(request.path, base),
      headers: request.headers ?? {},
      deadlineMs,
      maxBodyBytes: MAX_STATUS_BYTES,
    },
    shutdown,
  );
  if (answer.type === 'failed' && answer.failure !== 'timeout') {
    throw new EdgesyncError(
      'daemon_request_failed',
      `cannot reach the daemon at ${base.origin} (${answer.detail}): is --daemon-url right and the daemon running?`,
    );
  }
  if (answer.type === 'aborted') {
    throw new EdgesyncError('interrupted', `interrupted while asking the daemon at ${base.origin}`);
  }
  return daemonAnswer(answer, `${base.origin}${request.path}`, 'no complete answer');
}

/**
 * A daemon's answer as JSON: the URL is the user's, so whatever answers there
 * was read within the status's bounds and is parsed, never cast unread. A body that
 * is not JSON is null (the callers say what they missed).
 */
export function daemonJson(response: { readonly text: string }): unknown {
  try {
    return JSON.parse(response.text) as unknown;
  } catch {
    return null;
  }
}
