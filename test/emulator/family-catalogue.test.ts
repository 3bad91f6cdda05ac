import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EMULATOR_VARIANTS, isVariantName } from '../../src/emulator/emulator-variants.js';
import type { FamilyRule } from '../../src/emulator/family-rule.js';
import { CATALOGUE_URL, type CatalogueRow, cells, readCatalogue } from './family-codes/catalogue.js';
import { familyRules } from './family-codes/family-rules.js';
import { type FamilyTable, ruleOf } from './family-codes/family-table.js';
import { API_WIDE_TABLE } from './family-codes/tables/api-wide.js';
import { CERTIFICATE_AUTHORITIES_TABLE } from './family-codes/tables/certificate-authorities.js';
import { HTTPS_EDGE_ROUTES_TABLE } from './family-codes/tables/https-edge-routes.js';
import { HTTPS_EDGES_TABLE } from './family-codes/tables/https-edges.js';
import { IP_POLICY_RULES_TABLE } from './family-codes/tables/ip-policy-rules.js';
import { RESERVED_ADDRS_TABLE } from './family-codes/tables/reserved-addrs.js';
import { TCP_EDGES_TABLE } from './family-codes/tables/tcp-edges.js';
import { TLS_EDGES_TABLE } from './family-codes/tables/tls-edges.js';

/**
 * The family's error catalogue (docs/family-errors.md, a copy of the spec's)
 * is the source of truth: every row has a rule of the emulator with its
 * number and a test (test/emulator/family-codes/), or a reason in
 * docs/emulator.md's table, which gives each row its page and verdict.
 */
const SHARED = new URL('../../../shared/spec/family-errors.md', import.meta.url);
const EMULATOR_DOC = new URL('../../docs/emulator.md', import.meta.url);
const TABLES: readonly FamilyTable[] = [
  API_WIDE_TABLE,
  IP_POLICY_RULES_TABLE,
  RESERVED_ADDRS_TABLE,
  CERTIFICATE_AUTHORITIES_TABLE,
  HTTPS_EDGES_TABLE,
  HTTPS_EDGE_ROUTES_TABLE,
  TCP_EDGES_TABLE,
  TLS_EDGES_TABLE,
];

interface DocRow {
  readonly section: string;
  readonly code: number;
  readonly page: string;
  readonly verdict: string;
  readonly text: string;
}

const VERDICT = /^(match|stricter|n\/a|unknown \(`--variant ([a-z-]+)`\))$/;

/** The rows of docs/emulator.md's catalogue table: `### <section>` then `| code | page | verdict | the emulator |`. */
function docRows(): { rows: DocRow[]; counts: string | undefined } {
  const text = readFileSync(EMULATOR_DOC, 'utf8');
  const start = text.indexOf("## The family's error catalogue, row by row");
  const end = text.indexOf('\n## ', start + 1);
  const part = text.slice(start, end === -1 ? undefined : end);
  const rows: DocRow[] = [];
  let section = '';
  for (const line of part.split('\n')) {
    if (line.startsWith('### ')) section = line.slice(4).trim();
    if (!/^\| \d+ \|/.test(line)) continue;
    const [code, page, verdict, emulator] = cells(line);
    rows.push({
      section,
      code: Number(code),
      page: page ?? '',
      verdict: verdict ?? '',
      text: emulator ?? '',
    });
  }
  return { rows, counts: /^\*\*Verdicts:\*\* (.*)$/m.exec(part)?.[1] };
}

const key = (row: { section: string; code: number }): string => `${row.section} ${row.code}`;

describe('the family error catalogue', async () => {
  const catalogue = readCatalogue();
  const rules = await familyRules();
  const { rows: documented, counts } = docRows();
  const docByRow = new Map(documented.map((row) => [key(row), row]));

  it("is the spec's copy, word for word, where the spec is beside the clone", () => {
    const copy = readFileSync(CATALOGUE_URL, 'utf8');

    if (existsSync(SHARED)) expect(copy).toBe(readFileSync(SHARED, 'utf8'));
    expect(catalogue.length).toBeGreaterThan(150);
  });

  it('has each row once in docs/emulator.md, with its page and a verdict', () => {
    const wrong = catalogue.flatMap((row) => {
      const doc = docByRow.get(key(row));
      if (doc === undefined) return [`${key(row)}: not in docs/emulator.md`];
      if (doc.page !== row.page) return [`${key(row)}: page ${doc.page}, the catalogue says ${row.page}`];
      if (!VERDICT.test(doc.verdict)) return [`${key(row)}: verdict "${doc.verdict}"`];
      if (doc.text.length < 10) return [`${key(row)}: says nothing of the emulator`];
      return [];
    });

    expect(wrong).toEqual([]);
    expect(documented.length).toBe(catalogue.length);
  });

  it('has a rule for every row but those with a reason, and a variant for every unknown one', () => {
    const wrong = catalogue.flatMap((row) => {
      const doc = docByRow.get(key(row));
      const answering = rules.filter(
        (rule) => rule.sections.includes(row.section) && rule.numbers.includes(row.code),
      );
      if (doc === undefined || doc.verdict === 'n/a')
        return answering.length > 1 ? [`${key(row)}: ${answering.length} rules`] : [];
      if (answering.length !== 1)
        return [`${key(row)}: ${answering.length} rules for a row with verdict ${doc.verdict}`];
      const variant = VERDICT.exec(doc.verdict)?.[2];
      if (variant === undefined) return [];
      if (!isVariantName(variant)) return [`${key(row)}: no variant ${variant}`];
      const code = (answering[0] as FamilyRule).code;
      if (typeof code !== 'number' && code.variant !== variant)
        return [`${key(row)}: its number is picked by ${code.variant}`];
      return [];
    });

    expect(wrong).toEqual([]);
  });

  it('has no rule that answers a row the catalogue does not have', () => {
    const rows = new Set(catalogue.map(key));

    const stray = rules.flatMap((rule) =>
      rule.sections.flatMap((section) =>
        rule.numbers.filter((code) => !rows.has(key({ section, code }))).map((code) => `${section} ${code}`),
      ),
    );

    expect(stray).toEqual([]);
  });

  it('tests every row a rule answers, with a request to the emulator', () => {
    const tested = new Set(
      TABLES.flatMap((table) => table.cases.map((c) => key({ section: table.section, code: c.code }))),
    );

    const untested = rules.flatMap((rule) =>
      rule.sections.flatMap((section) =>
        rule.numbers
          .filter((code) => !tested.has(key({ section, code })))
          .map((code) => `${section} ${code}`),
      ),
    );

    expect(untested).toEqual([]);
  });

  it('checks every static rule in validate, and no other: the two rule sets are one', () => {
    const validated = new Set(
      TABLES.flatMap((table) =>
        table.cases.filter((c) => c.validate !== undefined).map((c) => ruleOf(rules, table.section, c.code)),
      ),
    );

    expect(rules.filter((rule) => rule.static && !validated.has(rule)).map((rule) => rule.condition)).toEqual(
      [],
    );
    expect([...validated].filter((rule) => !rule.static).map((rule) => rule.condition)).toEqual([]);
  });

  it('maps each family number to exactly one word', () => {
    const words = new Map<number, Set<string>>();
    for (const rule of rules) {
      for (const code of rule.numbers) words.set(code, (words.get(code) ?? new Set()).add(rule.word));
    }

    expect([...words].filter(([, found]) => found.size > 1)).toEqual([]);
  });

  it('states the verdict counts at the top of the table, and none laxer', () => {
    const tally = (verdict: (row: DocRow) => boolean): number => documented.filter(verdict).length;
    const unknown = tally((row) => row.verdict.startsWith('unknown'));
    const variants = new Set(documented.flatMap((row) => VERDICT.exec(row.verdict)?.[2] ?? []));

    expect(counts).toBe(
      `${tally((row) => row.verdict === 'match')} match, ${tally((row) => row.verdict === 'stricter')} stricter, ${unknown} unknown (${variants.size} variants: ${[...variants].sort().join(', ')}), ${tally((row) => row.verdict === 'n/a')} n/a (a reason each), 0 laxer.`,
    );
    for (const variant of variants) expect(Object.keys(EMULATOR_VARIANTS)).toContain(variant);
  });

  it('reads every row of every section of the catalogue', () => {
    const sections = new Set(catalogue.map((row: CatalogueRow) => row.section));

    expect([...sections]).toEqual(TABLES.map((table) => table.section));
  });
});
