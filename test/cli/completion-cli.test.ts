import { describe, expect, it } from 'vitest';
import { runEdgesyncInProcess } from '../support/edgesync-cli.js';

/** The bash script's case for one command: its flags and the values it completes. */
function bashCase(script: string, command: string): string {
  const start = script.indexOf(`\n    ${command})\n`);
  return script.slice(start, script.indexOf('\n      ;;', start));
}

describe('edgesync completion writes its scripts from the command line as registered', () => {
  it('every command, the flags the kinds give export, and no flag the help hides', async () => {
    const run = await runEdgesyncInProcess(['completion', 'bash']);

    expect(run.code).toBe(0);
    for (const command of [
      'apply',
      'validate',
      'plan',
      'show',
      'status',
      'doctor',
      'watch',
      'reconcile',
      'emulator',
      'export',
      'version',
      'completion',
    ]) {
      expect(run.stdout, command).toContain(`\n    ${command})\n`);
    }
    expect(bashCase(run.stdout, 'export')).toContain('--tcp-edge');
    expect(bashCase(run.stdout, 'watch')).not.toContain('--force');
    expect(bashCase(run.stdout, 'plan')).toContain(
      "--log-format) COMPREPLY=($(compgen -W 'text json pretty'",
    );
    expect(bashCase(run.stdout, 'completion')).toContain("compgen -W 'bash zsh fish'");
  });

  it.each(['zsh', 'fish'])('%s: the same commands and choices', async (shell) => {
    const run = await runEdgesyncInProcess(['completion', shell]);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('apply');
    expect(run.stdout).toContain('text json pretty');
  });

  it('refuses a shell it has no script for, naming the ones it has', async () => {
    const run = await runEdgesyncInProcess(['completion', 'tcsh']);

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'edgesync: <shell>: expected one of bash, zsh, fish (found "tcsh")\nsee `edgesync completion --help`\n',
    );
  });
});
