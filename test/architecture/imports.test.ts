/**
 * The code's runtime imports form no circle: a module is loaded only after everything it needs (type-only imports
 * vanish when compiled and do not count). Read from the source as text, the way the compiler resolves relative
 * specifiers; the rule is shown failing on a graph with a deliberately wrong import.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

type Graph = ReadonlyMap<string, readonly string[]>;

/** Every `.ts` file under `dir`, relative to the repository. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative modules a file loads at run time: `import`/`export … from` that is not `import type`/`export type`. */
function runtimeImports(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s+'(\.[^']+)';?$/gms), ...text.matchAll(/^import\s+'(\.[^']+)';?$/gm)];
  return specifiers.map((match) => normalize(join(dirname(file), match[1] as string)));
}

/** The circles of a graph: each as the files on it, starting from its first in order, or none. */
function circles(graph: Graph): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push(path.slice(path.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

const root = join(import.meta.dirname, '../..');
const graphOf = (files: readonly string[]): Graph =>
  new Map(files.map((file) => [relative(root, file), runtimeImports(relative(root, file), readFileSync(file, 'utf8'))]));

describe('runtime imports', () => {
  it('of src/ form no circle', () => {
    expect(circles(graphOf(sourceFiles(join(root, 'src'))))).toEqual([]);
  });

  it('a deliberately wrong import is found: the ledger reaching up to what imports it', () => {
    const text = {
      'src/ledger/rows.ts': "import { failureClassStored } from '../trade/failure-classes.ts';",
      'src/trade/failure-classes.ts': "import { LeaseLostError } from '../ledger/leases.ts';\nimport type { Trade } from './types.ts';",
      'src/ledger/leases.ts': "import { stored } from './rows.ts';",
      'src/trade/types.ts': "import type { Attempt } from '../ledger/rows.ts';",
    };
    const graph = new Map(Object.entries(text).map(([file, source]) => [file, runtimeImports(file, source)]));
    expect(graph.get('src/trade/failure-classes.ts')).toEqual(['src/ledger/leases.ts']);
    expect(circles(graph)).toEqual([['src/ledger/leases.ts', 'src/ledger/rows.ts', 'src/trade/failure-classes.ts']]);
  });
});
