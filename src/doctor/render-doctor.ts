import { BUILD_FACTS, buildFactsLine } from '../version.js';
import type { DoctorLine } from './doctor-line.js';
import type { DoctorReport } from './run-doctor.js';

const MARKS = { holds: 'ok  ', differs: 'FAIL', unknown: '??  ' } as const;

/** The first line of the text report: what ran the checks, for a support ticket. */
export function doctorHeaderText(): string {
  return buildFactsLine();
}

/** One line of text (no newline): the verdict, the assumption, what the service answered (and the variant it showed). */
export function doctorLineText(line: DoctorLine): string {
  const variant = line.variant === undefined ? '' : ` [${line.variant}]`;
  return `${MARKS[line.verdict]} ${line.assumption}: ${line.answered}${variant}`;
}

/** The closing lines of the text report. */
export function doctorSummaryText(report: DoctorReport): string[] {
  const failed = report.lines.filter((line) => line.verdict === 'differs').length;
  const unknown = report.lines.filter((line) => line.verdict === 'unknown').length;
  const parts: string[] = [];
  if (report.interrupted) parts.push('interrupted: the probes stopped and cleaned up');
  for (const left of report.leftBehind) parts.push(`NOT REMOVED: ${left}`);
  parts.push(
    failed === 0 && !report.interrupted && report.leftBehind.length === 0
      ? `${report.lines.length - unknown} assumption(s) hold, ${unknown} unknown: edgesync can work with this service`
      : `${failed} assumption(s) do not hold: see the FAIL lines above`,
  );
  return parts;
}

/** The report for tools (snake_case, like the service). */
export function doctorJson(report: DoctorReport): string {
  return `${JSON.stringify(
    {
      build: BUILD_FACTS,
      ok: report.ok,
      interrupted: report.interrupted,
      probe_run: report.run,
      left_behind: report.leftBehind,
      checks: report.lines.map((line) => ({
        check: line.check,
        assumption: line.assumption,
        answered: line.answered,
        verdict: line.verdict,
        ...(line.variant === undefined ? {} : { variant: line.variant }),
      })),
    },
    null,
    2,
  )}\n`;
}
