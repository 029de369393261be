import path from 'node:path';
import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

// The layering of ENGINEERING.md "Layout", held against the code's own imports (type-only
// imports included: a type cycle is a design cycle too). madge reads the import graph;
// the rules below are this project's.

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Where a source file belongs: a module's folder, a top folder of src/, or itself (a file at src/'s top: app.ts, config.ts…). */
export function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'modules') return `modules/${parts[1]}`;
  return parts.length > 1 ? parts[0]! : file;
}

/** Every cycle of a directed graph (one per strongly connected component of two or more nodes). */
export function cyclesOf(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

function folderGraph(files: Record<string, string[]>): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const [file, imports] of Object.entries(files)) {
    const from = folderOf(file);
    if (!edges.has(from)) edges.set(from, new Set());
    for (const imported of imports) {
      const to = folderOf(imported);
      if (to !== from) edges.get(from)!.add(to);
    }
  }
  return edges;
}

describe('import graph of src/', () => {
  let files: Record<string, string[]>;
  beforeAll(async () => {
    const graph = await madge(path.join(ROOT, 'src'), {
      fileExtensions: ['ts'],
      tsConfig: path.join(ROOT, 'tsconfig.json'),
      detectiveOptions: { ts: { skipTypeImports: false } },
    });
    files = graph.obj();
    expect(graph.warnings().skipped).toEqual([]);
  });

  it('reads the whole tree', () => {
    expect(Object.keys(files).length).toBeGreaterThan(150);
    expect(files['ledger/book.ts']).toContain('ledger/postings.ts');
  });

  it('has no cycle between folders', () => {
    expect(cyclesOf(folderGraph(files))).toEqual([]);
  });

  it('has no cycle between files', () => {
    const edges = new Map(Object.entries(files).map(([file, imports]) => [file, new Set(imports)]));
    expect(cyclesOf(edges)).toEqual([]);
  });

  /** The imports of files in `folder` that reach outside `allowed` folders, as `file -> import`. */
  const reachingOut = (folder: string, allowed: readonly string[]) =>
    Object.entries(files)
      .filter(([file]) => folderOf(file) === folder)
      .flatMap(([file, imports]) =>
        imports.filter((i) => !allowed.includes(folderOf(i))).map((i) => `${file} -> ${i}`),
      );

  it('keeps the kernel below every module: ledger/ imports no module, plugin or app file', () => {
    expect(reachingOut('ledger', ['ledger', 'db', 'domain', 'shared'])).toEqual([]);
  });

  it('keeps domain/ pure: it imports only domain/', () => {
    expect(reachingOut('domain', ['domain'])).toEqual([]);
  });

  it('keeps db/ below the modules and the kernel', () => {
    expect(reachingOut('db', ['db', 'domain', 'shared', 'config.ts'])).toEqual([]);
  });

  // Issue 42: a stock operation books through the ledger's one intake; what it needs of
  // another module (look-ups, the order-bound guard, the receipt effect) comes in through the
  // kernel's interfaces, wired in src/ledger-policies.ts — never by an import.
  const BELOW_MODULES = ['ledger', 'db', 'domain', 'shared', 'app-context.ts', 'config.ts'];

  it('stock-logs and movements import no other module folder', () => {
    for (const module of ['stock-logs', 'movements'])
      expect(reachingOut(`modules/${module}`, [`modules/${module}`, ...BELOW_MODULES])).toEqual([]);
  });

  it('every stock operation imports only the ledger, the layers below and its own folder', () => {
    const operations = [
      'modules/stock-logs/service.ts',
      'modules/stock-logs/intents.ts',
      'modules/movements/service.ts',
      'modules/external-counting/service.ts',
      'modules/customer-orders/picking.ts',
      'modules/deliveries/receiving.ts',
    ];
    for (const file of operations) {
      expect(files[file], file).toBeDefined();
      const own = folderOf(file);
      expect(
        files[file]!.filter((i) => ![own, ...BELOW_MODULES].includes(folderOf(i))).map((i) => `${file} -> ${i}`),
      ).toEqual([]);
    }
  });

  it('keeps the modules shallow: at most 20 edges and 3 levels between module folders', () => {
    const modules = new Map(
      [...folderGraph(files)]
        .filter(([from]) => from.startsWith('modules/'))
        .map(([from, to]) => [from, new Set([...to].filter((t) => t.startsWith('modules/')))]),
    );
    const edges = [...modules.values()].reduce((sum, to) => sum + to.size, 0);
    const levelOf = (folder: string, seen: ReadonlySet<string> = new Set()): number =>
      1 +
      Math.max(
        0,
        ...[...(modules.get(folder) ?? [])]
          .filter((t) => !seen.has(t))
          .map((t) => levelOf(t, new Set([...seen, folder]))),
      );
    expect(edges).toBeLessThanOrEqual(20);
    expect(Math.max(...[...modules.keys()].map((folder) => levelOf(folder)))).toBeLessThanOrEqual(3);
  });
});

describe('cyclesOf', () => {
  it('finds a cycle and ignores a chain', () => {
    const graph = (pairs: Array<[string, string]>) => {
      const edges = new Map<string, Set<string>>();
      for (const [a, b] of pairs) {
        if (!edges.has(a)) edges.set(a, new Set());
        edges.get(a)!.add(b);
      }
      return edges;
    };
    expect(
      cyclesOf(
        graph([
          ['a', 'b'],
          ['b', 'c'],
        ]),
      ),
    ).toEqual([]);
    expect(
      cyclesOf(
        graph([
          ['a', 'b'],
          ['b', 'c'],
          ['c', 'a'],
          ['c', 'd'],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(folderOf('modules/stock-logs/service.ts')).toBe('modules/stock-logs');
    expect(folderOf('ledger/book.ts')).toBe('ledger');
    expect(folderOf('app.ts')).toBe('app.ts');
  });
});
