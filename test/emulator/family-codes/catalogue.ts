import { readFileSync } from 'node:fs';

/** One row of the family's error catalogue (docs/family-errors.md). */
export interface CatalogueRow {
  /** The heading the row is under, without `## `. */
  readonly section: string;
  readonly code: number;
  readonly appliesTo: string;
  readonly condition: string;
  readonly values: string;
  /** `err_ngrok_<n>.mdx`. */
  readonly page: string;
}

export const CATALOGUE_URL = new URL('../../../docs/family-errors.md', import.meta.url);

/** The cells of a Markdown table row, trimmed; a `|` inside backticks is not a separator here (the catalogue has none). */
export function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());
}

/** Every numbered row of the catalogue, under its heading. */
export function parseCatalogue(text: string): CatalogueRow[] {
  const rows: CatalogueRow[] = [];
  let section = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) section = line.slice(3).trim();
    if (!/^\| \d+ \|/.test(line)) continue;
    const [code, appliesTo, condition, values, page] = cells(line);
    rows.push({
      section,
      code: Number(code),
      appliesTo: appliesTo ?? '',
      condition: condition ?? '',
      values: values ?? '',
      page: page ?? '',
    });
  }
  return rows;
}

export function readCatalogue(): CatalogueRow[] {
  return parseCatalogue(readFileSync(CATALOGUE_URL, 'utf8'));
}
