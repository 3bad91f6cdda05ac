/** Types of build-if-stale.mjs, for test/support/build-once.ts. */
export function staleSources(root: string): string[];
export function bundleIsStale(root: string): boolean;
export function buildIfStale(
  root: string,
  options?: { quiet?: boolean },
): { compiled: boolean; bundled: boolean };
