import { fileURLToPath } from 'node:url';

/**
 * The compiled CLI that process-level tests run, as users do. `npm test`
 * builds it first; `test/support/build-once.ts` builds it when it is missing.
 */
export const BUILT_CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
