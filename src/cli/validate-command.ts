import { caExpiryWarnings } from '../manifest/ca-expiry.js';
import { loadDesiredState } from '../manifest/load-desired-state.js';
import { visibleJson, visibleText } from '../visible-text.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { parseDuration } from './duration-option.js';
import { manifestErrorsToSarif } from './manifest-errors-sarif.js';
import { findRepoRoot, relativeToRepoRoot } from './repo-root.js';
import type { ValidateFlags } from './validate-flags.js';

export async function runValidate(
  paths: readonly string[],
  flags: ValidateFlags,
  ctx: CommandContext,
): Promise<CommandOutcome> {
  if (flags.owner.trim() === '') {
    ctx.stderr.write('edgesync validate: --owner must not be empty\n');
    return 'invalid_option';
  }
  const caWarningMs = parseDuration('--ca-expiry-warning', flags.caExpiryWarning);
  const defaulted = paths.length === 0;
  const result = await loadDesiredState(defaulted ? ['.'] : paths, {
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
    for (const error of errors) ctx.stdout.write(`${error.format()}\n`);
  }
  if (result.ok) {
    const { files, entries, directories = [], warnings = [] } = result.value;
    for (const warning of [...warnings, ...caExpiryWarnings(entries, Date.now(), caWarningMs)]) {
      ctx.stderr.write(`warning: ${visibleText(warning)}\n`);
    }
    if (defaulted) ctx.stderr.write(`${readDirectoriesNote(directories)}\n`);
    const summary = `${plural(files.length, 'file')} valid (${plural(entries.length, 'entry', 'entries')})\n`;
    if (flags.format === 'text') ctx.stdout.write(summary);
    else ctx.stderr.write(summary);
    return 'ok';
  }
  const files = new Set(errors.map((error) => error.file)).size;
  ctx.stderr.write(`${plural(errors.length, 'error')} in ${plural(files, 'file')}\n`);
  return 'manifests_invalid';
}

/** With no path given, say what was read: a YAML file in an unexpected place is then easy to spot. */
function readDirectoriesNote(directories: readonly string[]): string {
  const shown = directories.slice(0, 10).map(visibleText).join(', ');
  const more = directories.length > 10 ? ` and ${directories.length - 10} more` : '';
  const read = directories.length === 0 ? 'no manifest files found below .' : `read ${shown}${more}`;
  return `${read} (no path given: node_modules and hidden directories such as .git are skipped)`;
}

function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
