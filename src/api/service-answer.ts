import { isRecord } from '../json-value.js';
import { ApiError, type ApiErrorDetails } from './api-error.js';
import type { ApiResponse, HttpMethod } from './edge-api.js';
import { OutcomeUnknownError } from './outcome-unknown-error.js';

/** The ApiError a non-2xx answer stands for: the service's error body when it sent one, else the start of the text. */
export function apiErrorFrom(
  method: HttpMethod,
  path: string,
  status: number,
  text: string,
  redact: (text: string) => string,
): ApiError {
  const parsed = parseJson(text);
  if (isRecord(parsed)) {
    const details = isRecord(parsed.details)
      ? (redactDeep(parsed.details, redact) as ApiErrorDetails)
      : undefined;
    return new ApiError({
      method,
      path,
      status,
      ...(typeof parsed.error_code === 'string' ? { errorCode: redact(parsed.error_code) } : {}),
      msg: redact(typeof parsed.msg === 'string' ? parsed.msg : ''),
      ...(details ? { details } : {}),
    });
  }
  // Scrubbed before it is cut: a secret across the cut would keep its first part.
  return new ApiError({ method, path, status, msg: redact(text.trim()).slice(0, 200) });
}

/** A 2xx answer's parsed body; undefined for 204 or an empty body. */
export function successResponse<T>(
  method: HttpMethod,
  path: string,
  status: number,
  text: string,
): ApiResponse<T> {
  if (status === 204 || text.trim() === '') return { status, body: undefined as T };
  const parsed = parseJson(text);
  if (parsed === undefined) {
    const error = new ApiError({ method, path, status, msg: 'response body is not JSON' });
    // The service answered 2xx, so a POST was applied, but without its body the caller cannot know the ID.
    if (method === 'POST') throw new OutcomeUnknownError({ method, path }, { cause: error });
    throw error;
  }
  return { status, body: parsed as T };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact));
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [redact(key), redactDeep(item, redact)]),
    );
  }
  return value;
}
