import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
/** The daemon: one function that did everything was where its bugs hid. */
const FOLDER = join(ROOT, 'src', 'watch');
const MAX_LINES = 100;

interface MeasuredFunction {
  /** `src/watch/file.ts:line name`. */
  readonly where: string;
  /** From the line of its signature to the line of its closing brace, both included. */
  readonly lines: number;
}

/** A function's name as a reader finds it: `Class.method`, the declaration's, or the variable or property it is assigned to. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  const parent = node.parent;
  const owner = ts.isClassLike(parent) && parent.name !== undefined ? `${parent.name.getText()}.` : '';
  if (ts.isConstructorDeclaration(node)) return `${owner}constructor`;
  if (node.name !== undefined) return `${owner}${node.name.getText()}`;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText();
  return '(anonymous)';
}

function functionsOf(file: string): MeasuredFunction[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: MeasuredFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const declaration = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(declaration.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(declaration.getEnd()).line;
      found.push({
        where: `${relative(ROOT, file)}:${first + 1} ${nameOf(declaration)}`,
        lines: last - first + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function measureFolder(folder: string): MeasuredFunction[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .flatMap((entry) => functionsOf(join(entry.parentPath, entry.name)));
}

describe('function length in src/watch/', () => {
  it(`has no function longer than ${MAX_LINES} lines, from its signature to its closing brace`, () => {
    const measured = measureFolder(FOLDER);

    expect(measured.length).toBeGreaterThan(100);
    expect(
      measured.filter((fn) => fn.lines > MAX_LINES).map((fn) => `${fn.where}: ${fn.lines} lines`),
    ).toEqual([]);
  });

  it('measures what it claims: a method, an arrow function and a nested function each count', () => {
    const file = join(ROOT, 'src', 'watch', 'reconcile-loop.ts');

    const names = functionsOf(file).map((fn) => fn.where.replace(/^.*:\d+ /, ''));

    expect(names).toEqual(
      expect.arrayContaining([
        'isForcedTrigger',
        'ReconcileLoop.constructor',
        'ReconcileLoop.health',
        'fire',
      ]),
    );
  });
});
