/**
 * The source's imports, read as text the way the compiler resolves relative specifiers, each rule shown failing on a
 * deliberately wrong import:
 *  - the import rule: the source's rooms stand on floors, and an import (types included) goes to its own room or to a
 *    room on a lower floor, never up or sideways. The trade's model (`src/model/`) and the small shared files are the
 *    ground floor; `chain/` and `ledger/` share a floor below `trade/`, so neither imports the other. Moving a room
 *    means moving its line in `floors`;
 *  - runtime imports form no circle: a module is loaded only after everything it needs (type-only imports vanish when
 *    compiled and do not count).
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

/** From the top down: the rooms on each floor. A room is a folder of src/, or a file directly in it. */
const floors: readonly (readonly string[])[] = [
  ['cli'],
  ['status'],
  ['engine', 'init', 'doctor'],
  ['devnet'],
  ['trade', 'strategy', 'routing'],
  // The chain and the ledger side by side: neither reaches into the other; the trade above joins them.
  ['chain', 'ledger'],
  ['price'],
  ['guard'],
  ['pools'],
  ['config'],
  ['ops', 'contracts', 'routing-client'],
  ['routing-api', 'http-guards.ts'],
  ['model', 'json.ts', 'bigint-math.ts', 'chains.ts', 'units.ts', 'primitives.ts', 'loopback.ts'],
  // The project's error classes, below the model: a guard's refusal is a trade's own error (model/guard-refusal.ts).
  ['errors.ts'],
];

const floorOf = (room: string) => floors.length - floors.findIndex((rooms) => rooms.includes(room));
const roomOf = (path: string) => path.split('/')[1] as string;

type SourceFile = { path: string; text: string };

/** Every import of a project file (static, type-only, re-export or dynamic) that goes up a floor or across one. */
function importsOffTheirFloor(files: readonly SourceFile[]): string[] {
  const wrong: string[] = [];
  for (const { path, text } of files) {
    const room = roomOf(path);
    for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)) {
      const target = normalize(join(dirname(path), match[1] as string));
      const to = roomOf(target);
      if (to === room) continue;
      if (!floors.some((rooms) => rooms.includes(to)) || floorOf(to) >= floorOf(room)) {
        wrong.push(`${path} imports ${target}: ${to} is not on a floor below ${room}`);
      }
    }
  }
  return wrong;
}

describe('the import rule', () => {
  it('holds for every source file', () => {
    const files = sourceFiles(join(root, 'src')).map((file) => ({ path: relative(root, file), text: readFileSync(file, 'utf8') }));
    expect(files.length).toBeGreaterThan(100);
    // Every room of src/ has its floor.
    expect([...new Set(files.map((file) => roomOf(file.path)))].filter((room) => !floors.some((rooms) => rooms.includes(room)))).toEqual([]);
    expect(importsOffTheirFloor(files)).toEqual([]);
  });

  it('fails on a deliberately wrong import: chain/ reaching into ledger/, even for a type', () => {
    const wrong = { path: 'src/chain/wallet.ts', text: "import type { Attempt } from '../ledger/ledger.ts';\n" };
    expect(importsOffTheirFloor([wrong])).toEqual(['src/chain/wallet.ts imports src/ledger/ledger.ts: ledger is not on a floor below chain']);
    // Sideways (two rooms on one floor) and a dynamic import up are as wrong; down and within a room are fine.
    const sideways = { path: 'src/ledger/x.ts', text: "import { x } from '../chain/wallet.ts';\n" };
    const dynamic = { path: 'src/model/x.ts', text: "const y = await import('../trade/pipeline.ts');\n" };
    const fine = {
      path: 'src/trade/x.ts',
      text: "import { a } from '../model/trade.ts';\nimport { b } from './check.ts';\nexport { c } from '../units.ts';\n",
    };
    expect(importsOffTheirFloor([sideways, dynamic, fine])).toEqual([
      'src/ledger/x.ts imports src/chain/wallet.ts: chain is not on a floor below ledger',
      'src/model/x.ts imports src/trade/pipeline.ts: trade is not on a floor below model',
    ]);
  });
});

/** Every relative import of a file under `dir` that leads into `into`. */
function importsInto(dir: string, into: string): string[] {
  return sourceFiles(join(root, dir)).flatMap((file) => {
    const path = relative(root, file);
    return [...readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)]
      .map((match) => normalize(join(dirname(path), match[1] as string)))
      .filter((target) => target.startsWith(`${into}/`))
      .map((target) => `${path} imports ${target}`);
  });
}

describe('the benchmarks', () => {
  it('import nothing of the tests: what both use is in support/', () => {
    expect(sourceFiles(join(root, 'scripts')).length).toBeGreaterThan(10);
    expect(importsInto('scripts', 'test')).toEqual([]);
    // The instruments themselves stand apart from the test runner.
    expect(importsInto('support', 'test')).toEqual([]);
    expect(sourceFiles(join(root, 'support')).filter((file) => readFileSync(file, 'utf8').includes("from 'vitest'"))).toEqual([]);
  });
});
