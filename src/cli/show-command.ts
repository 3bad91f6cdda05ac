import { resolve } from 'node:path';
import { planJsonChunks } from '../plan/render-json.js';
import { planTextChunks } from '../plan/render-text.js';
import { limitHeapGrowth } from '../plan-session/heap-growth.js';
import { useColor } from './color-choice.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { readSavedPlanFile } from './plan-file.js';
import { parseMaxChars, renderMarkdownForRepo } from './plan-markdown.js';
import type { ShowFlags } from './show-flags.js';
import { writePieces } from './write-pieces.js';

export async function runShow(file: string, flags: ShowFlags, ctx: CommandContext): Promise<CommandOutcome> {
  const maxChars = parseMaxChars(flags.maxChars);
  limitHeapGrowth();
  const { plan } = await readSavedPlanFile(resolve(ctx.cwd, file));
  if (flags.format === 'json') await writePieces(ctx.stdout, planJsonChunks(plan));
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
    const color = useColor(flags.color, ctx.stdout, ctx.env);
    await writePieces(ctx.stdout, planTextChunks(plan, { color }));
  }
  return 'ok';
}
