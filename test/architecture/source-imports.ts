import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** The repository's src/. */
export const SRC = join(import.meta.dirname, '../../src');

/** One relative import of a file of src/, both as paths relative to src/. */
export interface SourceImport {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

export function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

const STATIC_IMPORT = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:([^'";]*?)\s+from\s+)?['"](\.[^'"]+)['"]/g;
/** `import('./x.js')`, awaited where a command or a module is loaded lazily; `typeof import(…)` names a type. */
const DYNAMIC_IMPORT = /(\btypeof\s+)?\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** Every relative import, re-export and dynamic `import()` of one file's text, as paths relative to src/. */
export function importsOf(file: string, text: string): SourceImport[] {
  const imports: SourceImport[] = [];
  const target = (specifier: string): string =>
    relative(SRC, normalize(join(dirname(join(SRC, file)), specifier.replace(/\.js$/, '.ts'))));
  for (const match of text.matchAll(STATIC_IMPORT)) {
    const names = match[2] ?? '';
    const everyNameTyped =
      /^\{[^}]*\}$/.test(names.trim()) &&
      names
        .replace(/[{}]/g, '')
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '')
        .every((name) => name.startsWith('type '));
    imports.push({
      from: file,
      to: target(match[3] as string),
      typeOnly: match[1] !== undefined || everyNameTyped,
    });
  }
  for (const match of text.matchAll(DYNAMIC_IMPORT)) {
    imports.push({ from: file, to: target(match[2] as string), typeOnly: match[1] !== undefined });
  }
  return imports;
}

/** Every relative import of `src/`: static, type-only and dynamic. */
export function readImports(): SourceImport[] {
  return sourceFiles(SRC).flatMap((file) => importsOf(relative(SRC, file), readFileSync(file, 'utf8')));
}
