import { EdgesyncError } from '../errors.js';

/** The documented exit codes (DESIGN.md, "Commands"), in one place. */
export const EXIT = {
  ok: 0,
  error: 1,
  changes: 2,
  stalePlan: 3,
  refused: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const EXIT_BY_ERROR_CODE: Readonly<Record<string, ExitCode>> = {
  plan_stale: EXIT.stalePlan,
  plan_refused: EXIT.refused,
};

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof EdgesyncError) return EXIT_BY_ERROR_CODE[error.code] ?? EXIT.error;
  return EXIT.error;
}
