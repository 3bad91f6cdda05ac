import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { propertyTestFiles } from '../support/property-test-files.js';

const ROOT = join(import.meta.dirname, '../..');
const TESTS = join(ROOT, 'test');

/** `file:line` of each fc.assert whose number of cases is not given, or given as a number written there. */
function unsizedAsserts(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  // Parsing every test file was most of this test's time; a file that never names fc.assert has none.
  if (!text.includes('fc.assert')) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.getText(source) === 'fc.assert') {
      const options = node.arguments[1];
      const numRuns =
        options !== undefined && ts.isObjectLiteralExpression(options)
          ? options.properties.find((property) => property.name?.getText(source) === 'numRuns')
          : undefined;
      const literal =
        numRuns !== undefined && ts.isPropertyAssignment(numRuns) && ts.isNumericLiteral(numRuns.initializer);
      if (numRuns === undefined || literal) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push(`${relative(ROOT, file)}:${line}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('fast-check sizes', () => {
  it('every property outside test/reliability/ takes its number of cases from propertyRuns (test/support/property-runs.ts)', () => {
    const files = readdirSync(TESTS, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((file) => !relative(TESTS, file).startsWith('reliability'));

    const unsized = files.flatMap(unsizedAsserts);

    expect(unsized).toEqual([]);
  });

  it('npm run test:reliability runs every file that sizes a property, at the large size', () => {
    const files = propertyTestFiles(ROOT);

    expect(files).toEqual(
      expect.arrayContaining([
        'test/manifest/parse-fast-path.test.ts',
        'test/access/access-property.test.ts',
      ]),
    );
    expect(files.every((file) => file.endsWith('.test.ts') && !file.startsWith('test/reliability/'))).toBe(
      true,
    );
  });
});
