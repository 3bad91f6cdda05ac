import { formatLocation, type SourceLocation } from '../manifest/source-location.js';
import { visibleText } from '../visible-text.js';
import { displayValue } from './display-value.js';
import { followUpUpdateCount } from './follow-up-updates.js';
import { DEFAULT_MARKDOWN_MAX_CHARS, MIN_MARKDOWN_MAX_CHARS } from './markdown-budget.js';
import type { FieldChange, Operation, Plan, PlanSummary, ResourceChange } from './plan.js';
import { planSummaryWords } from './summary-words.js';

export {
  DEFAULT_MARKDOWN_MAX_CHARS,
  GITHUB_COMMENT_MAX_CHARS,
  MIN_MARKDOWN_MAX_CHARS,
} from './markdown-budget.js';

export interface RenderMarkdownOptions {
  /**
   * At most this many characters (JavaScript string length, i.e. UTF-16 code
   * units, as GitHub counts). The summary, errors, refusal and every delete
   * and replace come first; the rest is folded into `<details>` and cut with
   * a line saying how much when it does not fit.
   * @default DEFAULT_MARKDOWN_MAX_CHARS
   */
  readonly maxChars?: number;
  /**
   * Characters of `maxChars` kept free for what the caller writes after the
   * plan (`show` lists the saved requests there); the cut line still names
   * `maxChars`. @default 0
   */
  readonly reservedChars?: number;
  /** Command that shows the whole plan, named in the cut line (`edgesync show plan.json`). */
  readonly fullPlanCommand?: string;
  /** How to name a manifest file (the command names them from the repository root); as the plan has it when absent. */
  readonly fileName?: (file: string) => string;
}

const ICON: Readonly<Record<Operation, string>> = {
  create: '🟢',
  update: '🟡',
  adopt: '🔵',
  replace: '🟠',
  delete: '🔴',
  'put-module': '🟡',
  'delete-module': '🔴',
};

/** What a reviewer calls each operation (the plan's own names are for tools). */
export const OPERATION_WORDS: Readonly<Record<Operation, string>> = {
  create: 'create',
  update: 'update',
  adopt: 'adopt',
  replace: 'replace',
  delete: 'delete',
  'put-module': 'write module',
  'delete-module': 'remove module',
};

/** More other changes than this are folded into `<details>`. */
const FOLD_ABOVE = 10;

/** Changes a reviewer must see whatever the budget: they destroy something. */
function destroys(change: ResourceChange): boolean {
  return change.op === 'delete' || change.op === 'replace' || change.op === 'delete-module';
}

/** Table cells may not hold pipes or newlines; control and bidi characters are escaped (visible-text.ts). */
function cell(text: string): string {
  return visibleText(text).replace(/\|/g, '\\|');
}

/** Inline code that survives backticks in the text. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${cell(text)}${pad}${fence}`;
}

/** A fence longer than any backtick run inside, so a value cannot close the block. */
function fenceFor(blocks: Iterable<readonly string[]>): string {
  let longest = 0;
  for (const lines of blocks)
    for (const line of lines)
      for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/**
 * The plan as a pull-request comment that GitHub accepts: at most
 * `maxChars` characters, what destroys something first, the rest folded
 * or cut with a line saying how many changes and characters were left out.
 */
export function renderPlanMarkdown(plan: Plan, options: RenderMarkdownOptions = {}): string {
  const maxChars = Math.max(MIN_MARKDOWN_MAX_CHARS, options.maxChars ?? DEFAULT_MARKDOWN_MAX_CHARS);
  const page = new BudgetedPage(maxChars, options.reservedChars ?? 0);
  const locate = locator(options.fileName);

  page.must(`### edgesync plan — owner ${code(plan.owner)}`, '');
  if (plan.refusal) {
    page.must(`> ⛔ **Refused (${plan.refusal.code})**: ${cell(plan.refusal.message)}`, '');
  }
  if (plan.changes.length === 0 && plan.errors.length > 0)
    page.must('**Nothing planned: fix the errors below.**', '');
  else if (plan.changes.length === 0) page.must('**No changes.** The account matches the manifests.', '');
  else page.must(`**${planSummaryWords(plan.summary, followUpUpdateCount(plan))}**`, '');
  page.must(`_${countsLine(plan.summary)}_`, '');

  const problems = [
    ...plan.errors.map((error) => {
      const where = error.source ? `${code(locate(error.source))}: ` : '';
      return `> ❌ **Error** ${where}${cell(error.message)} (${code(error.code)})`;
    }),
    ...(plan.warnings ?? []).map((warning) => `> ⚠️ ${cell(warning.message)}`),
  ];
  page.list({ items: problems.map((line) => [line, '']), plural: 'errors and warnings' });

  const destructive = plan.changes.filter(destroys);
  const others = plan.changes.filter((change) => !destroys(change));
  if (destructive.length > 0) {
    page.section(`#### Deletes and replaces (${destructive.length})`, '');
    page.table(destructive, locate);
    page.diff(destructive);
  }
  if (others.length > 0) {
    const title = destructive.length > 0 ? 'Other changes' : 'Changes';
    const show = (): void => {
      page.table(others, locate);
      page.diff(others);
    };
    if (others.length > FOLD_ABOVE) page.details(`${title} (${others.length})`, show);
    else {
      page.section(`#### ${title} (${others.length})`, '');
      show();
    }
  }
  page.closeWithCutLine(options.fullPlanCommand);
  return page.text();
}

function countsLine(summary: PlanSummary): string {
  return `${summary.unchanged} unchanged; ${summary.unmanaged} unmanaged object(s) left alone.`;
}

/** `file:line:col`, the file named by `fileName`: asked once per file, not once per change. */
function locator(fileName: ((file: string) => string) | undefined): (source: SourceLocation) => string {
  if (fileName === undefined) return formatLocation;
  const names = new Map<string, string>();
  return (source) => {
    let name = names.get(source.file);
    if (name === undefined) {
      name = fileName(source.file);
      names.set(source.file, name);
    }
    return formatLocation({ ...source, file: name });
  };
}

function tableRow(change: ResourceChange, locate: (source: SourceLocation) => string): string {
  const where = change.source ? code(locate(change.source)) : '';
  return `| ${ICON[change.op]} | ${code(change.address)} | ${OPERATION_WORDS[change.op]} | ${cell(change.reason)} | ${where} |`;
}

/**
 * One change as lines of a `diff` block: `+` and `-` in column 0 so GitHub
 * colours them, an update as the old line then the new one.
 */
export function diffLines(change: ResourceChange): string[] {
  const id = change.id ? ` (${visibleText(change.id)})` : '';
  const address = visibleText(change.address);
  const heading = `# ${address}: ${OPERATION_WORDS[change.op]} — ${visibleText(change.reason)}`;
  // Read once: an EntryCreateChange makes its field changes again on each read.
  const fields = change.changes;
  const width = Math.max(0, ...fields.map((field) => visibleText(field.path).length));
  const removing = change.op === 'delete' || change.op === 'delete-module';
  const adding = change.op === 'create' || fields.every((field) => !('before' in field));
  const open = removing ? '-' : adding ? '+' : ' ';
  const lines = [heading, `${open} ${address}${id} {`];
  for (const field of fields) lines.push(...fieldLines(field, width, removing, adding, change.op));
  lines.push(`${open} }`);
  return lines;
}

function fieldLines(
  field: FieldChange,
  width: number,
  removing: boolean,
  adding: boolean,
  op: Operation,
): string[] {
  const path = visibleText(field.path).padEnd(width);
  const note = field.forcesReplace && op === 'replace' ? '  # forces replacement' : '';
  const before = (): string => displayValue(field.before, field.sensitive);
  const after = (): string => displayValue(field.after, field.sensitive);
  if (removing) return [`-     ${path} = ${before()}`];
  if (adding || !('before' in field)) return [`+     ${path} = ${after()}${note}`];
  if (!('after' in field)) return [`-     ${path} = ${before()}${note}`];
  return [`-     ${path} = ${before()}`, `+     ${path} = ${after()}${note}`];
}

interface ListSpec {
  /** Each item's lines, made as the page gets to it; an item is shown whole or not at all. */
  readonly items: Iterable<readonly string[]>;
  /** How the cut line counts them: "table rows", "change details". */
  readonly plural: string;
}

/**
 * Lines added in reading order against a character budget. `must` lines
 * are always kept; list items are added while they fit, keeping room for
 * what closes open blocks and for the cut line.
 */
class BudgetedPage {
  private readonly lines: string[] = [];
  private used = 0;
  /** Lines that close the blocks now open (fences, `</details>`), innermost first. */
  private readonly closers: string[][] = [];
  private readonly cut = new Map<string, number>();
  private cutChars = 0;
  /** Room kept for the cut line and closers of blocks; generous so one long plural still fits. */
  private static readonly RESERVE = 400;

  constructor(
    private readonly maxChars: number,
    private readonly reservedChars: number,
  ) {}

  private cost(lines: readonly string[]): number {
    return lines.reduce((sum, line) => sum + line.length + 1, 0);
  }

  private closingCost(): number {
    return this.closers.reduce((sum, block) => sum + this.cost(block), 0);
  }

  private fits(lines: readonly string[]): boolean {
    return (
      this.used + this.cost(lines) + this.closingCost() + BudgetedPage.RESERVE + this.reservedChars <=
      this.maxChars
    );
  }

  private push(lines: readonly string[]): void {
    this.lines.push(...lines);
    this.used += this.cost(lines);
  }

  private skip(what: string, lines: readonly string[]): void {
    this.cut.set(what, (this.cut.get(what) ?? 0) + 1);
    this.cutChars += this.cost(lines);
  }

  must(...lines: string[]): void {
    this.push(lines);
  }

  /** A heading shown only when it and at least a little more fit. */
  section(...lines: string[]): void {
    if (this.fits(lines)) this.push(lines);
  }

  /** Items in order until one does not fit; that one and the rest are counted as cut. */
  list(spec: ListSpec): void {
    let full = false;
    for (const item of spec.items) {
      full = full || !this.fits(item);
      if (full) this.skip(spec.plural, item);
      else this.push(item);
    }
  }

  /** Rows and blocks are made one at a time, as they are added or counted: a plan of 100,000 changes is never all text at once. */
  table(changes: readonly ResourceChange[], locate: (source: SourceLocation) => string): void {
    const header = ['| | Address | Action | Reason | Manifest |', '|---|---|---|---|---|'];
    const rows = function* (): Generator<readonly string[]> {
      for (const change of changes) yield [tableRow(change, locate)];
    };
    const first = changes[0];
    if (!this.fits([...header, first === undefined ? '' : tableRow(first, locate)])) {
      for (const row of rows()) this.skip('table rows', row);
      return;
    }
    this.push(header);
    this.closers.unshift(['']);
    this.list({ items: rows(), plural: 'table rows' });
    this.closers.shift();
    this.push(['']);
  }

  diff(changes: readonly ResourceChange[]): void {
    const blocks = function* (): Generator<readonly string[]> {
      for (const change of changes) yield diffLines(change);
    };
    const fence = fenceFor(blocks());
    const first = changes[0];
    const opening = [`${fence}diff`];
    if (!this.fits([...opening, ...(first === undefined ? [] : diffLines(first)), fence])) {
      for (const block of blocks()) this.skip('change details', block);
      return;
    }
    this.push(opening);
    this.closers.unshift([fence, '']);
    this.list({ items: blocks(), plural: 'change details' });
    this.closers.shift();
    this.push([fence, '']);
  }

  details(summary: string, body: () => void): void {
    const opening = [`<details><summary>${cell(summary)}</summary>`, ''];
    if (!this.fits(opening)) {
      body();
      return;
    }
    this.push(opening);
    this.closers.unshift(['</details>', '']);
    body();
    this.closers.shift();
    this.push(['</details>', '']);
  }

  closeWithCutLine(fullPlanCommand: string | undefined): void {
    if (this.cut.size === 0) return;
    const parts = [...this.cut].map(([what, count]) => `${count} ${what}`);
    const how = fullPlanCommand ? `; run ${code(fullPlanCommand)} for the whole plan` : '';
    this.push([
      `_Not shown to stay under ${this.maxChars.toLocaleString('en-US')} characters: ${parts.join(', ')} (${this.cutChars.toLocaleString('en-US')} characters)${how}._`,
    ]);
  }

  text(): string {
    return `${this.lines.join('\n')}\n`;
  }
}
