/** What a secret becomes in a message. */
export const SCRUBBED = '[REDACTED]';

/**
 * Every secret value a run knows (the API key, the manifests' resolved
 * secrets), and the one function every message from the service passes
 * through before it goes into an error, a log line or the terminal: a
 * service that echoes a request body (a 400 quoting the OIDC module it was
 * sent) would otherwise print its client secret. Values are added as they
 * become known (the manifests load after the client is made).
 */
export class SecretScrubber {
  readonly #values = new Set<string>();
  /** Every written form of every value, longest first; undefined until the next scrub after a change. */
  #pattern: RegExp | undefined;

  /**
   * Knows `value` from now on: as is, as JSON writes it inside a string
   * (once and twice: an echoed body quoted in a JSON message), and
   * percent-encoded (an echoed URL).
   */
  add(value: string): void {
    if (value === '' || this.#values.has(value)) return;
    this.#values.add(value);
    this.#pattern = undefined;
  }

  /** How many values it knows. */
  get size(): number {
    return this.#values.size;
  }

  /** `text` with every form of every known value replaced by SCRUBBED. */
  scrub(text: string): string {
    if (this.#values.size === 0 || text === '') return text;
    this.#pattern ??= patternOf(this.#values);
    return text.replace(this.#pattern, SCRUBBED);
  }
}

function patternOf(values: ReadonlySet<string>): RegExp {
  const forms = new Set<string>();
  for (const value of values) {
    const once = JSON.stringify(value).slice(1, -1);
    forms.add(value);
    forms.add(once);
    forms.add(JSON.stringify(once).slice(1, -1));
    forms.add(encodeURIComponent(value));
  }
  // Longest first: a secret that contains another is replaced whole.
  const alternatives = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp(alternatives.join('|'), 'g');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
