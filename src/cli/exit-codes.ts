/** The documented exit codes (DESIGN.md, "Commands"); the table from outcomes to them is in run-edgesync.ts. */
export const EXIT = {
  ok: 0,
  error: 1,
  changes: 2,
  stalePlan: 3,
  refused: 4,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
