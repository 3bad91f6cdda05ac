import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('limitHeapGrowthFor', () => {
  // v8.setFlagsFromString ignores a flag V8 does not know: if a Node major dropped this one,
  // large plans would silently peak higher again. CI runs this on Node 20 and the Dockerfile's major.
  it("sets a flag that this Node's V8 still has", async () => {
    const { stdout } = await run(process.execPath, ['--v8-options'], { maxBuffer: 16 * 1024 * 1024 });
    expect(stdout).toContain('--heap-growing-percent');
  });
});
