import { OptionError } from '../errors.js';
import { KINDS } from '../kinds/registry.js';
import { expiryWarnings } from '../manifest/expiry-warnings.js';
import { loadDesiredState } from '../manifest/load-desired-state.js';
import { manifestsRead, manifestsReadLines } from '../plan-session/manifests-read.js';
import { visibleJson, visibleText } from '../visible-text.js';
import { builtInLoad } from './built-in-registry.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { parseDuration } from './duration-option.js';
import { parseLogLevel, wantsDetail } from './log-level.js';
import { manifestErrorLines } from './manifest-error-lines.js';
import { manifestErrorsToSarif } from './manifest-errors-sarif.js';
import { findRepoRoot, relativeToRepoRoot } from './repo-root.js';
import type { ValidateFlags } from './validate-flags.js';

export async function runValidate(
  paths: readonly string[],
  flags: ValidateFlags,
  ctx: CommandContext,
): Promise<CommandOutcome> {
  if (flags.owner.trim() === '') throw new OptionError('--owner', 'must not be empty');
  const caWarningMs = parseDuration('--ca-expiry-warning', flags.caExpiryWarning);
  const detail = wantsDetail(parseLogLevel(flags.logLevel));
  const defaulted = paths.length === 0;
  const result = await loadDesiredState(defaulted ? ['.'] : paths, {
    ...builtInLoad(),
    env: ctx.env,
    owner: flags.owner,
    allowOutsideRoot: flags.allowOutsideRoot === true,
    readSecrets: flags.requireSecrets === true,
    cwd: ctx.cwd,
  });
  const errors = result.ok ? [] : result.errors;
  if (flags.format === 'json') {
    ctx.stdout.write(
      `${visibleJson(
        errors.map((error) => error.toJSON()),
        2,
      )}\n`,
    );
  } else if (flags.format === 'sarif') {
    const root = await findRepoRoot(ctx.cwd, flags.repoRoot);
    const sarif = manifestErrorsToSarif(errors, (file) => relativeToRepoRoot(file, ctx.cwd, root));
    ctx.stdout.write(`${visibleJson(sarif, 2)}\n`);
  } else {
    // Diagnostics go to stderr, as every command's do: stdout holds only the result.
    for (const line of manifestErrorLines(errors, detail)) ctx.stderr.write(`${line}\n`);
  }
  if (result.ok) {
    const { files, entries } = result.value;
    const read = manifestsRead(result.value, defaulted ? ['.'] : paths, defaulted);
    for (const line of manifestsReadLines(read, { always: false })) ctx.stderr.write(`${line}\n`);
    for (const warning of expiryWarnings(entries, KINDS, Date.now(), caWarningMs)) {
      ctx.stderr.write(`warning: ${visibleText(warning)}\n`);
    }
    const summary = `${plural(files.length, 'file')} valid (${plural(entries.length, 'entry', 'entries')})\n`;
    if (flags.format === 'text') ctx.stdout.write(summary);
    else ctx.stderr.write(summary);
    return 'ok';
  }
  const files = new Set(errors.map((error) => error.file)).size;
  ctx.stderr.write(`${plural(errors.length, 'error')} in ${plural(files, 'file')}\n`);
  return 'manifests_invalid';
}

function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
