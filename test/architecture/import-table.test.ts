import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, readImports, type SourceImport, SRC, sourceFiles } from './source-imports.js';

const ROOT = join(import.meta.dirname, '../..');
const SHARED = '(shared)';
/** Every folder under src/kinds/ (a kind, or a part several kinds share) is one row: `src/kinds/<kind>/`. */
const KIND_FOLDER = 'kinds/<kind>';
/** The one module that imports every kind folder: only entry points import it, and pass it on as a value. */
const REGISTRY = 'kinds/registry.ts';

interface Allowance {
  /** Folders (`plan`) or files (`kinds/kind-name.ts`) this folder may import. */
  readonly targets: ReadonlySet<string>;
  /** Folders it may import only with `import type`. */
  readonly typesOnly: ReadonlySet<string>;
}

/**
 * The "may import" table of docs/architecture.md, by folder (`cli`; `(shared)`
 * for `src/*.ts`) or by file (`emulator/server.ts`): a file's own row holds
 * for it instead of its folder's.
 */
function readTable(markdown: string): Map<string, Allowance> {
  const table = new Map<string, Allowance>();
  for (const line of markdown.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const folder = /^`src\/(?:(kinds\/<kind>|[a-z-]+)\/|\*\.ts|([a-z-]+\/[a-z-]+\.ts))`$/.exec(
      cells[1] ?? '',
    );
    if (!folder || cells.length < 5) continue;
    const targets = new Set<string>();
    const typesOnly = new Set<string>();
    for (const match of (cells[3] ?? '').matchAll(/`([^`]+)`( \(types only\))?/g)) {
      targets.add(match[1] as string);
      if (match[2]) typesOnly.add(match[1] as string);
    }
    table.set(folder[1] ?? folder[2] ?? SHARED, { targets, typesOnly });
  }
  return table;
}

function folderOf(path: string): string {
  if (path === REGISTRY) return REGISTRY;
  if (/^kinds\/[^/]+\//.test(path)) return KIND_FOLDER;
  return path.includes('/') ? (path.split('/')[0] as string) : SHARED;
}

/** The imports the table does not allow, as readable lines. */
function violations(imports: readonly SourceImport[], table: ReadonlyMap<string, Allowance>): string[] {
  const found: string[] = [];
  for (const { from, to, typeOnly } of imports) {
    const source = folderOf(from);
    const target = folderOf(to);
    if (source === target || target === SHARED) continue;
    const allowance = table.get(from) ?? table.get(source);
    if (allowance === undefined) {
      found.push(`${from}: src/${source}/ has no row in docs/architecture.md`);
      continue;
    }
    const allowed = allowance.targets.has(target) || allowance.targets.has(to);
    if (!allowed) found.push(`${from} imports ${to}: src/${source}/ may not import ${target}`);
    else if (allowance.typesOnly.has(target) && !typeOnly) {
      found.push(`${from} imports ${to}: src/${source}/ may import ${target} for types only`);
    }
  }
  return found;
}

/** Import cycles between files (Tarjan's strongly connected components). */
function cycles(imports: readonly SourceImport[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const { from, to } of imports) edges.set(from, [...(edges.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      for (;;) {
        const member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
        if (member === node) break;
      }
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('docs/architecture.md "may import" table', () => {
  const table = readTable(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));
  const imports = readImports();

  it('has a row for every folder of src/', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);

    expect(folders.filter((folder) => !table.has(folder))).toEqual([]);
    expect(table.has(SHARED)).toBe(true);
  });

  it('holds for every import of src/, type and dynamic imports included', () => {
    expect(imports.length).toBeGreaterThan(300);
    expect(violations(imports, table)).toEqual([]);
  });

  it('has no import cycle in src/, type and dynamic imports included', () => {
    expect(cycles(imports)).toEqual([]);
  });

  it('catches an import against the table, a value import where only types are allowed, and a cycle', () => {
    const bad: SourceImport[] = [
      { from: 'api/client.ts', to: 'kinds/kind.ts', typeOnly: true },
      { from: 'plan/plan.ts', to: 'api/edge-api.ts', typeOnly: false },
      { from: 'emulator/store.ts', to: 'kinds/registry.ts', typeOnly: false },
      { from: 'emulator/routes.ts', to: 'kinds/https-edges/emulator.ts', typeOnly: false },
      { from: 'plan/plan.ts', to: 'kinds/registry.ts', typeOnly: true },
      { from: 'emulator/server.ts', to: 'kinds/registry.ts', typeOnly: false },
      { from: 'plan/a.ts', to: 'plan/b.ts', typeOnly: true },
      { from: 'plan/b.ts', to: 'plan/a.ts', typeOnly: true },
    ];

    expect(violations(bad, table)).toEqual([
      'api/client.ts imports kinds/kind.ts: src/api/ may not import kinds',
      'plan/plan.ts imports api/edge-api.ts: src/plan/ may import api for types only',
      'emulator/store.ts imports kinds/registry.ts: src/emulator/ may not import kinds/registry.ts',
      'emulator/routes.ts imports kinds/https-edges/emulator.ts: src/emulator/ may not import kinds/<kind>',
      'plan/plan.ts imports kinds/registry.ts: src/plan/ may not import kinds/registry.ts',
    ]);
    expect(cycles(bad)).toEqual([['plan/a.ts', 'plan/b.ts']]);
  });

  it('reads a dynamic import() as an edge, so that a lazily loaded module cannot close a cycle unseen', () => {
    const flags = importsOf(
      'cli/plan-flags.ts',
      "import type { Command } from 'commander';\n" +
        "command.action(async () => { const { runPlan } = await import('./plan-command.js'); });\n",
    );
    const command = importsOf('cli/plan-command.ts', "import type { PlanFlags } from './plan-flags.js';\n");
    const typeOf = importsOf('cli/load.ts', "type Module = typeof import('./run-edgesync.js');\n");

    expect(flags).toEqual([{ from: 'cli/plan-flags.ts', to: 'cli/plan-command.ts', typeOnly: false }]);
    expect(cycles([...flags, ...command])).toEqual([['cli/plan-command.ts', 'cli/plan-flags.ts']]);
    expect(typeOf).toEqual([{ from: 'cli/load.ts', to: 'cli/run-edgesync.ts', typeOnly: true }]);
  });

  it('keeps plan/ free of I/O: no filesystem, network or process module', () => {
    const io = /from '(node:)?(fs|fs\/promises|net|http|https|child_process|dgram|tls)'/;
    const offenders = sourceFiles(join(SRC, 'plan')).filter((file) => io.test(readFileSync(file, 'utf8')));

    expect(offenders.map((file) => relative(SRC, file))).toEqual([]);
  });
});
