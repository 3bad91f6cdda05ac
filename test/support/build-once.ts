import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BUILT_CLI } from './built-cli.js';

/**
 * vitest globalSetup: tests that run the CLI as a process need `dist/`.
 * `npm test` compiles before vitest starts; a bare `npx vitest run` on a
 * fresh clone would otherwise fail on a missing file, so compile once here.
 */
export default function setup(): void {
  if (existsSync(BUILT_CLI)) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', '.'], { stdio: 'inherit' });
}
