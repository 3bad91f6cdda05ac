import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { EdgesyncError } from '../errors.js';
import type { EmulatorStore, StoreSnapshot } from './store.js';

/**
 * Keeps a store in a JSON file: written atomically (temp file + rename) a
 * short while after each change, and on close; read back on start.
 */
export class DataFile {
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private writing: Promise<void> = Promise.resolve();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly path: string,
    private readonly store: EmulatorStore,
    /** Milliseconds to wait after a change before writing, so bursts of writes cost one file write. */
    private readonly debounceMs = 50,
  ) {
    this.unsubscribe = store.onChange(() => this.schedule());
  }

  /** Loads the file into the store; false when it does not exist yet. */
  static async load(path: string, store: EmulatorStore): Promise<boolean> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw new EdgesyncError('emulator_data_unreadable', `cannot read emulator data file ${path}`, {
        cause: error,
      });
    }
    let snapshot: StoreSnapshot;
    try {
      snapshot = JSON.parse(text) as StoreSnapshot;
    } catch (error) {
      throw new EdgesyncError('emulator_data_invalid', `emulator data file ${path} is not JSON`, {
        cause: error,
      });
    }
    if (snapshot?.format !== 'edgesync-emulator/1') {
      throw new EdgesyncError(
        'emulator_data_invalid',
        `emulator data file ${path} is not an edgesync emulator data file`,
      );
    }
    store.restore(snapshot);
    return true;
  }

  private schedule(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => {
        // a failed background write is retried by the next change or by close()
        this.dirty = true;
      });
    }, this.debounceMs);
  }

  /** Writes now if anything changed since the last write. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      const text = `${JSON.stringify(this.store.snapshot())}\n`;
      const temp = `${this.path}.${process.pid}.tmp`;
      await mkdir(dirname(this.path), { recursive: true });
      await writeFile(temp, text, 'utf8');
      await rename(temp, this.path);
    });
    return this.writing;
  }

  async close(): Promise<void> {
    this.unsubscribe();
    this.dirty = true;
    await this.flush();
  }
}
