import { formatLocation } from '../manifest/source-location.js';
import type { Operation, Plan } from './plan.js';
import { renderPlanText, summaryLine } from './render-text.js';

export interface RenderMarkdownOptions {
  /** More changes than this fold the details into a `<details>` block. @default 10 */
  readonly foldAbove?: number;
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

/** Table cells may not hold pipes or newlines. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** The plan as a pull-request comment: a summary table, the text plan in a diff block (folded when long). */
export function renderPlanMarkdown(plan: Plan, options: RenderMarkdownOptions = {}): string {
  const lines: string[] = [`### edgesync plan — owner \`${plan.owner}\``, ''];
  for (const error of plan.errors) {
    const where = error.source ? `\`${formatLocation(error.source)}\`: ` : '';
    lines.push(`> ❌ **Error** ${where}${cell(error.message)}`, '');
  }
  for (const warning of plan.warnings ?? []) lines.push(`> ⚠️ ${cell(warning.message)}`, '');
  if (plan.refusal) lines.push(`> ⛔ **Refused (${plan.refusal.code})**: ${cell(plan.refusal.message)}`, '');
  if (plan.changes.length === 0) {
    lines.push('**No changes.** The account matches the manifests.', '');
  } else {
    lines.push(`**${summaryLine(plan.summary)}**`, '');
    lines.push('| | Address | Operation | Reason |', '|---|---|---|---|');
    for (const change of plan.changes) {
      lines.push(
        `| ${ICON[change.op]} | \`${cell(change.address)}\` | ${change.op} | ${cell(change.reason)} |`,
      );
    }
    lines.push('');
    const { refusal: _shownAbove, ...changesOnly } = plan;
    const details = [
      '```diff',
      renderPlanText({ ...changesOnly, errors: [], warnings: [] }).trimEnd(),
      '```',
    ];
    if (plan.changes.length > (options.foldAbove ?? 10)) {
      lines.push(
        `<details><summary>Details (${plan.changes.length} changes)</summary>`,
        '',
        ...details,
        '',
        '</details>',
      );
    } else {
      lines.push(...details);
    }
    lines.push('');
  }
  lines.push(
    `_${plan.summary.unchanged} unchanged; ${plan.summary.unmanaged} unmanaged object(s) left alone._`,
  );
  return `${lines.join('\n')}\n`;
}
