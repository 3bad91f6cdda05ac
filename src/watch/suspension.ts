/** Whether the daemon is suspended, since when and at whose word, as `/status` shows it. */
export interface SuspensionStatus {
  readonly suspended: boolean;
  /** RFC 3339: when the daemon was suspended; null while it is not. */
  readonly since: string | null;
  /** Who suspended it: `--suspended` (at start), or the address `edgesync suspend` came from; null while it is not. */
  readonly by: string | null;
}

/** What became of a request to suspend or resume: whether it changed anything. */
export interface SuspensionChange {
  readonly changed: boolean;
  readonly status: SuspensionStatus;
}

/**
 * The daemon's suspension (`edgesync suspend`, `watch --suspended`): while
 * it holds, each run plans and reports as observe mode does and no write is
 * sent. It lives in memory only: a restart without `--suspended` resumes.
 * Each run reads it once, as it starts (`RunInput.mode`); the apply stage
 * asks it again before each write, so that a suspension stops a run already
 * applying.
 */
export class Suspension {
  #since: number | null = null;
  #by: string | null = null;
  readonly #now: () => number;

  constructor(now: () => number, startSuspended: boolean) {
    this.#now = now;
    if (startSuspended) this.#set('--suspended');
  }

  get suspended(): boolean {
    return this.#since !== null;
  }

  suspend(by: string): SuspensionChange {
    if (this.suspended) return { changed: false, status: this.status() };
    this.#set(by);
    return { changed: true, status: this.status() };
  }

  resume(): SuspensionChange {
    if (!this.suspended) return { changed: false, status: this.status() };
    this.#since = null;
    this.#by = null;
    return { changed: true, status: this.status() };
  }

  status(): SuspensionStatus {
    return {
      suspended: this.suspended,
      since: this.#since === null ? null : new Date(this.#since).toISOString(),
      by: this.#by,
    };
  }

  #set(by: string): void {
    this.#since = this.#now();
    this.#by = by;
  }
}
