import { isRecord } from '../../json-value.js';
import type { EntryProblem, LiveProblem } from '../kind.js';
import type { LiveObject } from '../live-state.js';

/**
 * Mutual TLS needs the edge to terminate TLS: the service family refuses it
 * on a TLS edge that passes TLS through (`terminate_at: upstream`), in
 * either order (its error 7062).
 */
function isUpstream(termination: unknown): boolean {
  return isRecord(termination) && termination.terminate_at === 'upstream';
}

/** `validate`: an entry that sets both. */
export function checkMutualTlsWithUpstream(value: Readonly<Record<string, unknown>>): EntryProblem[] {
  if (!isRecord(value.mutual_tls) || !isUpstream(value.tls_termination)) return [];
  return [
    {
      code: 'mutual_tls_with_upstream',
      pointer: '/mutual_tls',
      message:
        'mutual TLS needs the edge to terminate TLS; the service refuses it while tls_termination.terminate_at is "upstream"',
    },
  ];
}

/**
 * `plan`: the entry against the modules the edge holds. A module the entry
 * leaves alone may clash with one it sets; and one that switches to or from
 * upstream while mutual TLS goes or comes cannot be applied in one go (the
 * service takes the second write only after the first, which edgesync does
 * not order): it is done in two plans.
 */
export function checkUpstreamWithLive(
  spec: Readonly<Record<string, unknown>>,
  object: LiveObject,
): LiveProblem[] {
  const mutualTls = spec.mutual_tls === undefined ? object.spec.mutual_tls : spec.mutual_tls;
  const termination = spec.tls_termination === undefined ? object.spec.tls_termination : spec.tls_termination;
  if (isRecord(mutualTls) && isUpstream(termination)) {
    const pointer = spec.mutual_tls === undefined ? '/tls_termination' : '/mutual_tls';
    return [
      {
        code: 'mutual_tls_with_upstream',
        pointer,
        message: `the edge ${spec.mutual_tls === undefined ? 'has mutual TLS' : 'passes TLS through (terminate_at "upstream")'}, which this entry keeps; the service refuses mutual TLS while TLS is not terminated at the edge`,
      },
    ];
  }
  const wasUpstream = isUpstream(object.spec.tls_termination);
  const switches = spec.tls_termination !== undefined && isUpstream(spec.tls_termination) !== wasUpstream;
  const mutualTlsChanges = isRecord(object.spec.mutual_tls) !== isRecord(mutualTls);
  if (!switches || !mutualTlsChanges) return [];
  return [
    {
      code: 'module_order',
      pointer: '/tls_termination',
      message: `terminate_at switches ${wasUpstream ? 'from' : 'to'} "upstream" while mutual TLS is ${isRecord(mutualTls) ? 'added' : 'removed'}: the service takes ${wasUpstream ? 'mutual TLS only after termination moves to the edge' : 'upstream termination only after mutual TLS is gone'}, an order edgesync does not give these two writes. Apply in two steps: first ${wasUpstream ? 'terminate_at: edge' : 'mutual_tls: null'}, then the rest`,
    },
  ];
}
