import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `EDGESYNC_FILE_CPU_OUT=/tmp/cpu.jsonl npx vitest run --config vitest.file-cpu.config.ts [FILES]`:
 * npm test's suite, each file's CPU written as it ends (test/support/file-cpu.ts; Linux only).
 */
export default mergeConfig(base, defineConfig({ test: { setupFiles: ['test/support/file-cpu.ts'] } }));
