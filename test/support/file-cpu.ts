import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';

/**
 * setupFiles of vitest.file-cpu.config.ts: appends to the file named by
 * EDGESYNC_FILE_CPU_OUT one JSON line per test file, its path and the CPU
 * seconds its hooks and tests took (user and system of the worker and of the
 * processes it waited for: utime, stime, cutime and cstime of
 * /proc/self/stat), and the wall seconds. CPU is what a shared machine can
 * compare; docs/testing.md says how to read it.
 */
const OUT = process.env.EDGESYNC_FILE_CPU_OUT ?? 'file-cpu.jsonl';
const TICKS_PER_SECOND = 100;

function cpuTicks(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // After the command name in parentheses: state is field 3, utime..cstime are fields 14-17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
}

let startTicks = 0;
let startedAt = 0;

beforeAll(() => {
  startTicks = cpuTicks();
  startedAt = performance.now();
});

// biome-ignore lint/correctness/noEmptyPattern: vitest reads a hook's first parameter as fixtures and wants a pattern.
afterAll(({}, suite) => {
  const file = (suite as { filepath?: string }).filepath ?? 'unknown';
  const cpu = (cpuTicks() - startTicks) / TICKS_PER_SECOND;
  const wall = (performance.now() - startedAt) / 1000;
  appendFileSync(OUT, `${JSON.stringify({ file, cpu, wall })}\n`);
});
