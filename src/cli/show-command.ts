import { resolve } from 'node:path';
import { KINDS } from '../kinds/registry.js';
import { planJsonChunks } from '../plan/render-json.js';
import { planTextChunks } from '../plan/render-text.js';
import { savedRequestsChunks, savedRequestsMarkdown } from '../plan/saved-plan-requests.js';
import { useColor } from './color-choice.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { limitHeapGrowth } from './heap-growth.js';
import { readSavedPlanFile } from './plan-file.js';
import { parseMaxChars, renderMarkdownForRepo } from './plan-markdown.js';
import type { ShowFlags } from './show-flags.js';
import { writePieces } from './write-pieces.js';

/**
 * Room a comment keeps for the requests' heading, note and cut line: the
 * plan's own markdown gets the rest, and the requests whatever it leaves.
 */
const REQUESTS_RESERVE_CHARS = 600;

export async function runShow(file: string, flags: ShowFlags, ctx: CommandContext): Promise<CommandOutcome> {
  const maxChars = parseMaxChars(flags.maxChars);
  limitHeapGrowth();
  const { plan } = await readSavedPlanFile(resolve(ctx.cwd, file), KINDS);
  // JSON lists every action with its request already; text and markdown add them after the changes.
  if (flags.format === 'json') await writePieces(ctx.stdout, planJsonChunks(plan));
  else if (flags.format === 'markdown') {
    const fullPlanCommand = `edgesync show ${file}`;
    const markdown = await renderMarkdownForRepo(
      plan,
      {
        maxChars,
        reservedChars: REQUESTS_RESERVE_CHARS,
        fullPlanCommand,
        ...(flags.repoRoot === undefined ? {} : { repoRoot: flags.repoRoot }),
      },
      ctx.cwd,
    );
    ctx.stdout.write(markdown);
    ctx.stdout.write(
      savedRequestsMarkdown(plan, {
        maxChars: maxChars - markdown.length,
        limit: maxChars,
        fullListCommand: fullPlanCommand,
      }),
    );
  } else {
    const color = useColor(flags.color, ctx.stdout, ctx.env);
    await writePieces(ctx.stdout, planTextChunks(plan, { color }));
    await writePieces(ctx.stdout, savedRequestsChunks(plan));
  }
  return 'ok';
}
