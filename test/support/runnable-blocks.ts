/**
 * The command blocks of the docs, as steps a test runs in order: every
 * block whose info string is `sh` is run. A block that cannot run here (it
 * needs docker, a cluster, the real service, or it starts a daemon that never
 * exits) is a `console` block, with a comment that says why. In an `sh`
 * block:
 *
 * - each line is a command (a line ending in `\` continues on the next);
 * - text after two or more spaces and `#` on a command line is prose;
 * - `# …` lines right under a command are what it prints: each must appear as
 *   a line of its output (stdout and stderr), where `…` stands for any text;
 * - `# exit N` under a command is its exit code (0 when not said);
 * - a `#` line after a blank line, or first in the block, is prose.
 */

export interface RunnableStep {
  /** The command as a reader types it, prose removed. */
  readonly command: string;
  /** Lines its output must hold, `…` matching any text. */
  readonly expectedLines: readonly string[];
  readonly exitCode: number;
  /** Where it is written, `docs/plan.md:9`. */
  readonly location: string;
}

const EXIT_LINE = /^# exit (\d+)$/;

/** The steps of every runnable block of `markdown`, in order. */
export function runnableSteps(markdown: string, file: string): RunnableStep[] {
  const steps: RunnableStep[] = [];
  const lines = markdown.split('\n');
  let inRunnable = false;
  let inOther = false;
  let current: { command: string; expected: string[]; exit: number; line: number } | undefined;
  let continuing = false;
  const close = (): void => {
    if (current !== undefined) {
      steps.push({
        command: current.command,
        expectedLines: current.expected,
        exitCode: current.exit,
        location: `${file}:${current.line}`,
      });
    }
    current = undefined;
    continuing = false;
  };
  lines.forEach((raw, index) => {
    const line = raw.trimEnd();
    const fence = /^```\s*(.*)$/.exec(line);
    if (fence !== null && !inOther && !inRunnable) {
      if (fence[1] === 'sh') inRunnable = true;
      else inOther = true;
      return;
    }
    if (fence !== null && line === '```') {
      close();
      inRunnable = false;
      inOther = false;
      return;
    }
    if (!inRunnable) return;
    if (continuing && current !== undefined) {
      current.command += `\n${line}`;
      continuing = line.endsWith('\\');
      return;
    }
    if (line.trim() === '') {
      close();
      return;
    }
    if (line.startsWith('#')) {
      if (current === undefined) return;
      const exit = EXIT_LINE.exec(line);
      if (exit !== null) current.exit = Number(exit[1]);
      else current.expected.push(line.replace(/^#\s?/, ''));
      return;
    }
    close();
    current = { command: line.replace(/\s{2,}#.*$/, ''), expected: [], exit: 0, line: index + 1 };
    continuing = line.endsWith('\\');
  });
  close();
  return steps;
}

/** Whether `output` holds a line that `expected` describes (`…` is any text; surrounding spaces ignored). */
export function holdsLine(output: string, expected: string): boolean {
  const pattern = new RegExp(
    `^${expected
      .trim()
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return output.split('\n').some((line) => pattern.test(line.trim()));
}

/** A fenced block of the docs whose commands a reader would type. */
export interface ShellBlock {
  /** The info string: `sh`, `console`, `bash`, … */
  readonly info: string;
  readonly lines: readonly string[];
  /** Where it starts, `docs/plan.md:9`. */
  readonly location: string;
}

/** Every fenced block of `markdown` whose info string names a shell, run or not. */
export function shellBlocks(markdown: string, file: string): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  let open: { info: string; lines: string[]; line: number } | undefined;
  let inOther = false;
  markdown.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    const fence = /^```\s*(.*)$/.exec(line);
    if (fence === null) {
      open?.lines.push(line);
      return;
    }
    if (open !== undefined || inOther) {
      if (line === '```') {
        if (open !== undefined)
          blocks.push({ info: open.info, lines: open.lines, location: `${file}:${open.line}` });
        open = undefined;
        inOther = false;
      }
      return;
    }
    const info = fence[1] ?? '';
    if (/^(sh|bash|shell|zsh|console)\b/.test(info)) open = { info, lines: [], line: index + 1 };
    else inOther = true;
  });
  return blocks;
}
