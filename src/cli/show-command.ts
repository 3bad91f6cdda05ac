import { resolve } from 'node:path';
import { Option } from 'commander';
import { renderPlanJson } from '../plan/render-json.js';
import { DEFAULT_MARKDOWN_MAX_CHARS } from '../plan/render-markdown.js';
import { renderPlanText } from '../plan/render-text.js';
import type { CommandContext, CommandOutcome, CommandRegistrar } from './command-context.js';
import {
  PLAN_FORMATS,
  type PlanFormat,
  parseMaxChars,
  renderMarkdownForRepo,
  withJsonDiagnostics,
} from './plan-command.js';
import { readSavedPlanFile } from './plan-file.js';

interface ShowFlags {
  readonly format: PlanFormat;
  readonly maxChars: string;
  readonly repoRoot?: string;
  /** commander's `--no-color`: false when given. */
  readonly color: boolean;
}

/**
 * `edgesync show PLAN_FILE`: renders a plan saved by `plan --out` without
 * touching the network, so a workflow can comment on (or a person read)
 * exactly the plan `apply --plan` will carry out.
 */
export const registerShowCommand: CommandRegistrar = (program, ctx) => {
  program
    .command('show')
    .description('render a plan saved by `plan --out` (no network; secrets stay hidden)')
    .argument('<plan-file>', 'a file written by `edgesync plan --out`')
    .addOption(new Option('--format <format>', 'output on stdout').choices(PLAN_FORMATS).default('text'))
    .option(
      '--max-chars <n>',
      'markdown: at most this many characters (GitHub takes 65,536 in a comment)',
      String(DEFAULT_MARKDOWN_MAX_CHARS),
    )
    .option('--repo-root <dir>', 'markdown: name manifests from this directory (default: the git top level)')
    .option('--no-color', 'no ANSI colours in text output (NO_COLOR is honoured too)')
    .action(async (file: string, flags: ShowFlags) => {
      ctx.setOutcome(await withJsonDiagnostics(flags.format, ctx, () => runShow(file, flags, ctx)));
    });
};

async function runShow(file: string, flags: ShowFlags, ctx: CommandContext): Promise<CommandOutcome> {
  const maxChars = parseMaxChars(flags.maxChars);
  const { plan } = await readSavedPlanFile(resolve(ctx.cwd, file));
  if (flags.format === 'json') ctx.stdout.write(renderPlanJson(plan));
  else if (flags.format === 'markdown') {
    ctx.stdout.write(
      await renderMarkdownForRepo(
        plan,
        {
          maxChars,
          fullPlanCommand: `edgesync show ${file}`,
          ...(flags.repoRoot === undefined ? {} : { repoRoot: flags.repoRoot }),
        },
        ctx.cwd,
      ),
    );
  } else {
    const color = flags.color && ctx.stdout.isTTY === true && ctx.env.NO_COLOR === undefined;
    ctx.stdout.write(renderPlanText(plan, { color }));
  }
  return 'ok';
}
