import xterm from '@xterm/headless';

/**
 * A terminal emulator fed with a program's output: what a person would see
 * on the screen, row by row, rather than the bytes that drew it.
 */
export class TerminalScreen {
  readonly #terminal: xterm.Terminal;
  #pending: Promise<void> = Promise.resolve();

  /**
   * `newlineIsCrLf`: output that did not pass through a pseudo-terminal, whose line discipline
   * turns "\n" into "\r\n" (ONLCR).
   */
  constructor(columns: number, options: { readonly rows?: number; readonly newlineIsCrLf?: boolean } = {}) {
    this.#terminal = new xterm.Terminal({
      cols: columns,
      rows: options.rows ?? 40,
      scrollback: 1000,
      allowProposedApi: true,
      convertEol: options.newlineIsCrLf === true,
    });
  }

  /** Feeds output to the terminal (carriage returns, erasing and all). */
  write(data: string | Uint8Array): void {
    this.#pending = this.#pending.then(
      () => new Promise<void>((resolve) => this.#terminal.write(data, resolve)),
    );
  }

  /**
   * Every line written so far, scrollback included: a line the terminal wrapped is one line
   * again, trailing blanks removed, the empty rows below the last line left out.
   */
  async lines(): Promise<string[]> {
    await this.#pending;
    const buffer = this.#terminal.buffer.active;
    const lines: string[] = [];
    for (let index = 0; index < buffer.length; index += 1) {
      const row = buffer.getLine(index);
      const text = row?.translateToString(true) ?? '';
      if (row?.isWrapped === true && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    return lines;
  }

  /** The row the cursor is on. */
  async cursorLine(): Promise<string> {
    await this.#pending;
    const buffer = this.#terminal.buffer.active;
    return buffer.getLine(buffer.baseY + buffer.cursorY)?.translateToString(true) ?? '';
  }

  dispose(): void {
    this.#terminal.dispose();
  }
}
