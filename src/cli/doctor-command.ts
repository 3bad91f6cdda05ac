import { doctorHeaderText, doctorJson, doctorLineText, doctorSummaryText } from '../doctor/render-doctor.js';
import { runDoctorChecks } from '../doctor/run-doctor.js';
import { OptionError } from '../errors.js';
import { KINDS } from '../kinds/registry.js';
import { visibleText } from '../visible-text.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { openConnection } from './connection.js';
import type { DoctorFlags } from './doctor-flags.js';
import { parseDuration } from './duration-option.js';
import { loggerFor } from './logger.js';

/**
 * `edgesync doctor`: one line per assumption edgesync makes of the service,
 * with what it answered; exit 0 when all hold, 1 otherwise (a mismatch is
 * reported as `unexpected_response`, interrupted probes as `interrupted`).
 */
export async function runDoctor(flags: DoctorFlags, ctx: CommandContext): Promise<CommandOutcome> {
  if (flags.probeEdge !== undefined && !flags.probeWrites) {
    throw new OptionError('--probe-edge', 'needs --probe-writes');
  }
  const logger = loggerFor(flags, ctx.stderr);
  const connection = await openConnection(flags, { logger });
  const text = flags.format === 'text';
  if (text) ctx.stdout.write(`${doctorHeaderText()}\n`);
  try {
    const report = await runDoctorChecks({
      api: connection.api,
      baseUrl: connection.baseUrl,
      apiKey: connection.apiKey,
      kinds: KINDS,
      timeoutMs: parseDuration('--timeout', flags.timeout),
      probeWrites: flags.probeWrites ?? false,
      ...(flags.probeEdge === undefined ? {} : { probeEdge: flags.probeEdge }),
      signal: ctx.shutdown,
      ...(text ? { onLine: (line) => ctx.stdout.write(`${visibleText(doctorLineText(line))}\n`) } : {}),
    });
    ctx.stdout.write(
      text
        ? doctorSummaryText(report)
            .map((part) => `${visibleText(part)}\n`)
            .join('')
        : doctorJson(report),
    );
    if (report.interrupted) return 'interrupted';
    return report.ok ? 'ok' : 'unexpected_response';
  } finally {
    await connection.close();
  }
}
