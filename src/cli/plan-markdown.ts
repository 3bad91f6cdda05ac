import { OptionError } from '../errors.js';
import type { Plan } from '../plan/plan.js';
import { MIN_MARKDOWN_MAX_CHARS, renderPlanMarkdown } from '../plan/render-markdown.js';
import { findRepoRoot, pathFromRepoRoot } from './repo-root.js';

/** Checks `--max-chars`: a whole number no smaller than what the heading and a cut line need. */
export function parseMaxChars(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value.trim()) || count < MIN_MARKDOWN_MAX_CHARS) {
    throw new OptionError(
      '--max-chars',
      `expected a whole number of at least ${MIN_MARKDOWN_MAX_CHARS} (found "${value}")`,
    );
  }
  return count;
}

/** The plan as a pull-request comment, manifests named from the repository root; `plan` and `show` both write it. */
export async function renderMarkdownForRepo(
  plan: Plan,
  options: {
    readonly maxChars: number;
    /** Room kept free after the plan for what the caller writes (RenderMarkdownOptions.reservedChars). */
    readonly reservedChars?: number;
    readonly repoRoot?: string;
    readonly fullPlanCommand?: string;
  },
  cwd: string,
): Promise<string> {
  const root = await findRepoRoot(cwd, options.repoRoot);
  return renderPlanMarkdown(plan, {
    maxChars: options.maxChars,
    ...(options.reservedChars === undefined ? {} : { reservedChars: options.reservedChars }),
    fileName: (file) => pathFromRepoRoot(file, cwd, root),
    ...(options.fullPlanCommand === undefined ? {} : { fullPlanCommand: options.fullPlanCommand }),
  });
}
