import { fileURLToPath } from 'node:url';
import { buildIfStale } from '../../scripts/build-if-stale.mjs';

export { bundleIsStale, staleSources } from '../../scripts/build-if-stale.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * vitest globalSetup: tests that run the CLI as a process run `dist/`. When
 * any source file is newer than its compiled file (or has none), compile
 * first, and bundle when the bundle is older: otherwise a bare `npx vitest
 * run` after an edit tests stale code and can pass while the source is
 * broken. `npm test` compiles before vitest starts, and then this finds
 * nothing to do. The same check is `npm start`'s prestart
 * (scripts/build-if-stale.mjs).
 */
export default function setup(): void {
  buildIfStale(ROOT, { quiet: true });
}
