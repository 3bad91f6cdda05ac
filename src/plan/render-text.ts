import { formatLocation } from '../manifest/source-location.js';
import { visibleText } from '../visible-text.js';
import { displayValue } from './display-value.js';
import { followUpUpdateCount } from './follow-up-updates.js';
import type { FieldChange, Operation, Plan, PlanSummary, ResourceChange } from './plan.js';
import { planSummaryWords } from './summary-words.js';

export interface RenderTextOptions {
  /** ANSI colours; the command passes `stdout.isTTY && !env.NO_COLOR`. @default false */
  readonly color?: boolean;
}

const SYMBOL: Readonly<Record<Operation, string>> = {
  create: '+',
  update: '~',
  adopt: '~',
  replace: '-/+',
  delete: '-',
  'put-module': '~',
  'delete-module': '-',
};

const VERB: Readonly<Record<Operation, string>> = {
  create: 'will be created',
  update: 'will be updated in place',
  adopt: 'will be adopted',
  replace: 'must be replaced',
  delete: 'will be deleted',
  'put-module': 'will be written',
  'delete-module': 'will be removed',
};

type Paint = (text: string) => string;

interface Palette {
  readonly green: Paint;
  readonly yellow: Paint;
  readonly red: Paint;
  readonly bold: Paint;
  readonly dim: Paint;
}

function palette(color: boolean): Palette {
  const code =
    (open: number, close: number): Paint =>
    (text) =>
      color ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    green: code(32, 39),
    yellow: code(33, 39),
    red: code(31, 39),
    bold: code(1, 22),
    dim: code(2, 22),
  };
}

function paintFor(op: Operation, colors: Palette): Paint {
  if (op === 'create') return colors.green;
  if (op === 'delete' || op === 'delete-module') return colors.red;
  if (op === 'replace') return colors.red;
  return colors.yellow;
}

/** The plan for people, like `terraform plan`: one block per changed object, then the summary line. */
export function renderPlanText(plan: Plan, options: RenderTextOptions = {}): string {
  return [...planTextChunks(plan, options)].join('');
}

/**
 * The text of `renderPlanText` in pieces of whole lines, each object's block
 * made when it is written: 100,000 creates are 33 MB of text, which a
 * command writes this way without holding it (docs/performance.md).
 */
export function* planTextChunks(plan: Plan, options: RenderTextOptions = {}): Generator<string> {
  const colors = palette(options.color ?? false);
  const lines: string[] = [];
  for (const error of plan.errors) {
    const where = error.source ? `${formatLocation(error.source)}: ` : '';
    lines.push(`${colors.red(colors.bold('Error:'))} ${where}${visibleText(error.message)} [${error.code}]`);
  }
  for (const warning of plan.warnings ?? [])
    lines.push(`${colors.yellow(colors.bold('Warning:'))} ${visibleText(warning.message)}`);
  if (lines.length > 0) lines.push('');
  if (plan.changes.length === 0 && plan.errors.length > 0) {
    lines.push(colors.red(colors.bold('Nothing planned: fix the errors above.')));
  } else if (plan.changes.length === 0) {
    lines.push(`${colors.green(colors.bold('No changes.'))} The account matches the manifests.`);
  } else {
    lines.push(`edgesync will perform the following actions (owner "${visibleText(plan.owner)}"):`, '');
    yield `${lines.join('\n')}\n`;
    lines.length = 0;
    for (const change of plan.changes) yield `${[...renderChange(change, colors), ''].join('\n')}\n`;
    lines.push(colors.bold(planSummaryWords(plan.summary, followUpUpdateCount(plan))));
  }
  lines.push(colors.dim(countsLine(plan.summary)));
  if (plan.refusal) {
    lines.push(
      '',
      `${colors.red(colors.bold(`Refused (${plan.refusal.code}):`))} ${visibleText(plan.refusal.message)}`,
    );
  }
  yield `${lines.join('\n')}\n`;
}

function renderChange(change: ResourceChange, colors: Palette): string[] {
  const paint = paintFor(change.op, colors);
  const where = change.source ? ` ${colors.dim(formatLocation(change.source))}` : '';
  // Names, IDs and paths come from manifests and the service: escaped, one line each.
  const id = change.id ? ` (${visibleText(change.id)})` : '';
  const address = visibleText(change.address);
  const lines = [
    colors.bold(`  # ${address} ${VERB[change.op]}`) + colors.dim(` — ${visibleText(change.reason)}`) + where,
    `${paint(SYMBOL[change.op].padStart(3))} ${address}${id} {`,
  ];
  // Read once: an EntryCreateChange makes its field changes again on each read.
  const fields = change.changes;
  const width = Math.max(0, ...fields.map((field) => visibleText(field.path).length));
  // Nothing had a value before (a module being set): secrets are additions too, not "changed".
  const adding = change.op === 'create' || fields.every((field) => !('before' in field));
  for (const field of fields) lines.push(renderField(field, adding ? 'create' : change.op, width, colors));
  lines.push('    }');
  return lines;
}

function renderField(field: FieldChange, op: Operation, width: number, colors: Palette): string {
  const path = visibleText(field.path).padEnd(width);
  const replaceNote = field.forcesReplace && op === 'replace' ? colors.red(' # forces replacement') : '';
  const hasBefore = 'before' in field;
  const hasAfter = 'after' in field;
  if (op === 'delete' || op === 'delete-module') {
    return `      ${colors.red('-')} ${path} = ${displayValue(field.before, field.sensitive)}`;
  }
  if (op === 'create' || (!hasBefore && !field.sensitive)) {
    return `      ${colors.green('+')} ${path} = ${displayValue(field.after, field.sensitive)}${replaceNote}`;
  }
  if (!hasAfter && !field.sensitive) {
    return `      ${colors.red('-')} ${path} = ${displayValue(field.before)}${replaceNote}`;
  }
  const before = displayValue(field.before, field.sensitive);
  const after = displayValue(field.after, field.sensitive);
  return `      ${colors.yellow('~')} ${path} = ${before} -> ${after}${replaceNote}`;
}

function countsLine(summary: PlanSummary): string {
  return `${summary.unchanged} unchanged; ${summary.unmanaged} unmanaged object(s) left alone.`;
}
