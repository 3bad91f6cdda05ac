import { EdgesyncError } from '../errors.js';
import type { KindName } from './kind-name.js';

export const KIND_ERROR_CODES = [
  /** The service answered with a body that does not have the spec's shape. */
  'unexpected_response',
  /** The kind has no such operation (e.g. creating a TCP edge, whose modules only are managed). */
  'unsupported_operation',
  /** A module name the kind does not have. */
  'unknown_module',
  /** Reading the live state of a kind failed; `cause` holds the ApiError. */
  'live_read_failed',
  /** The service answered a read of an object named by ID with 400: it refuses the ID itself (`id` names it). */
  'id_refused',
] as const;

export type KindErrorCode = (typeof KIND_ERROR_CODES)[number];

/** An error raised by a kind module; names the kind (and the object's ID when there is one). */
export class KindError extends EdgesyncError<KindErrorCode> {
  readonly kind: KindName;
  readonly id: string | undefined;

  constructor(
    code: KindErrorCode,
    message: string,
    context: { readonly kind: KindName; readonly id?: string; readonly cause?: unknown },
  ) {
    super(code, message, context.cause === undefined ? undefined : { cause: context.cause });
    this.kind = context.kind;
    this.id = context.id;
  }
}
