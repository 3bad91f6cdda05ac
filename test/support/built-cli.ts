import { fileURLToPath } from 'node:url';

/**
 * The CLI that process-level tests run, as users do: the `edgesync` binary,
 * the bundle of the compiled sources (scripts/bundle-cli.mjs). `npm test`
 * builds it first; `test/support/build-once.ts` builds it when it is missing.
 */
export const BUILT_CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
