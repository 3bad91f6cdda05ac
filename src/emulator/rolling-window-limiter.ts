/**
 * At most `requests` accepted in any `windowMs` (a rolling window, as the
 * service family counts). Refused requests do not use up the window.
 */
export class RollingWindowLimiter {
  private readonly accepted: number[] = [];

  constructor(
    private readonly requests: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** `null` when accepted, else the milliseconds until a slot frees up. */
  tryAcquire(): number | null {
    const now = this.now();
    while (this.accepted.length > 0 && (this.accepted[0] as number) <= now - this.windowMs)
      this.accepted.shift();
    if (this.accepted.length < this.requests) {
      this.accepted.push(now);
      return null;
    }
    return (this.accepted[0] as number) + this.windowMs - now;
  }
}
