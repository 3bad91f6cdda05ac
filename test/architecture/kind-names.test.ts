import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import { sampleKind } from '../support/sample-kind/index.js';

const SRC = join(import.meta.dirname, '../../src');

/** Every module of src/ but the kind folders and the registry that imports them. */
function genericModules(): string[] {
  return readdirSync(SRC, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.generated.ts'))
    .map((entry) => relative(SRC, join(entry.parentPath, entry.name)))
    .filter((path) => !/^kinds\/[^/]+\//.test(path) && path !== 'kinds/registry.ts');
}

/** The names a module's code holds (strings, template parts, identifiers); comments are not code. */
function namesIn(path: string, names: readonly string[]): string[] {
  const pattern = new RegExp(`(?<![A-Za-z0-9_])(${names.join('|')})(?![A-Za-z0-9_])`, 'g');
  const source = ts.createSourceFile(
    path,
    readFileSync(join(SRC, path), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const found = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteralLike(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isIdentifier(node)
    ) {
      for (const match of node.text.matchAll(pattern)) found.add(match[1] as string);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...found].sort();
}

describe('kind knowledge lives in src/kinds/<kind>/', async () => {
  const parts = await Promise.all(KINDS.map((kind) => kind.emulator?.()));
  const names = [
    ...KINDS.map((kind) => kind.name),
    ...KINDS.flatMap((kind) => kind.modules.map((module) => module.name)),
    ...parts
      .flatMap((part) => [part, ...(part?.requires ?? [])])
      .flatMap((part) => part?.collections ?? [])
      .map((c) => c.name),
  ];
  const modules = genericModules();
  const found = new Map(modules.map((path) => [path, namesIn(path, [...new Set(names)])] as const));

  it('knows the names to look for: every kind, module and emulated collection', () => {
    expect(names).toEqual(
      expect.arrayContaining(['ip_policy_rules', 'mutual_tls', 'ip_policies', 'https_edge_routes']),
    );
    expect(modules.length).toBeGreaterThan(150);
  });

  it('names no kind, module or emulated collection in the code of a generic module', () => {
    const offenders = [...found].filter(([, hits]) => hits.length > 0);

    expect(offenders).toEqual([]);
  });

  it('needs no edit of src/ for the sample kind: nothing there names it', () => {
    const everywhere = readdirSync(SRC, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => relative(SRC, join(entry.parentPath, entry.name)));

    expect(everywhere.filter((path) => namesIn(path, [sampleKind.name]).length > 0)).toEqual([]);
  });
});
