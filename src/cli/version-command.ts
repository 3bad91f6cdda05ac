import { BUILD_FACTS } from '../version.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import type { VersionFlags } from './version-flags.js';

/**
 * `edgesync version`: `edgesync 0.1.0`, `node 20.20.2`, `platform linux x64`,
 * or the same facts as JSON (`{"edgesync": …, "node": …, "platform": …,
 * "arch": …}`), the object `doctor --format json` holds as `build`.
 */
export async function runVersion(flags: VersionFlags, ctx: CommandContext): Promise<CommandOutcome> {
  const facts = BUILD_FACTS;
  ctx.stdout.write(
    flags.format === 'json'
      ? `${JSON.stringify(facts)}\n`
      : `edgesync ${facts.edgesync}\nnode ${facts.node}\nplatform ${facts.platform} ${facts.arch}\n`,
  );
  return 'ok';
}
