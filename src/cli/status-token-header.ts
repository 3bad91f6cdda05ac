import { resolve } from 'node:path';
import { exposureWarning } from '../credential-file.js';
import { readStatusToken } from '../watch/status-token.js';
import type { CommandContext } from './command-context.js';

/**
 * The header that lets a read of a daemon's `/status`, `/inventory` or `/`
 * through, when the daemon runs with `--status-token-file` and the command
 * was given the same file (`--status-token-file`,
 * `EDGESYNC_STATUS_TOKEN_FILE`); none when it was not. Warns, as every
 * command does, when others can read the file.
 */
export async function statusTokenHeader(
  file: string | undefined,
  ctx: Pick<CommandContext, 'cwd' | 'stderr'>,
): Promise<Readonly<Record<string, string>>> {
  if (file === undefined) return {};
  const { token, exposure } = await readStatusToken(resolve(ctx.cwd, file));
  if (exposure !== undefined)
    ctx.stderr.write(`warning: ${exposureWarning(file, '--status-token-file', exposure)}\n`);
  return { Authorization: `Bearer ${token}` };
}
