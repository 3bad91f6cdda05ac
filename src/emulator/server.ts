import type { Kind } from '../kinds/kind.js';
import { KINDS } from '../kinds/registry.js';
import type { EmulatorOptions } from './emulator-options.js';
import { type RunningEmulator, serveEmulator } from './serve-emulator.js';

export type { AppliedWrite, EmulatorOptions } from './emulator-options.js';
export type { EmulatorSeed } from './seed.js';
export type { RunningEmulator } from './serve-emulator.js';

/**
 * The emulator's entry point: serves the emulator part of every kind of
 * `kinds` (the built-in registry unless a test adds a kind of its own) and
 * resolves once it listens on `host:port`. Each part loads here, not with
 * its kind, so that commands that never start the emulator never load it.
 */
export async function startEmulator(
  options: EmulatorOptions = {},
  kinds: readonly Kind[] = KINDS,
): Promise<RunningEmulator> {
  const parts = await Promise.all(kinds.flatMap((kind) => (kind.emulator ? [kind.emulator()] : [])));
  return serveEmulator(parts, options);
}
