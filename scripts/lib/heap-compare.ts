import fs from 'node:fs';

/**
 * What grew between two V8 heap snapshots (`npm run soak -- --heap-snapshots`): objects
 * counted and summed by constructor (strings, arrays and closures by their kind), the 25
 * that grew most in bytes, as a table. A rough first look; DevTools' Comparison view of the
 * same two files shows who holds them (the retainers).
 */
interface Totals {
  count: number;
  bytes: number;
}

function totalsOf(file: string): Map<string, Totals> {
  const snapshot = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = [fields.indexOf('type'), fields.indexOf('name'), fields.indexOf('self_size')];
  const totals = new Map<string, Totals>();
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    const type = types[snapshot.nodes[i + typeAt]!]!;
    const key = type === 'object' || type === 'native' ? snapshot.strings[snapshot.nodes[i + nameAt]!]! : `(${type})`;
    const entry = totals.get(key) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += snapshot.nodes[i + sizeAt]!;
    totals.set(key, entry);
  }
  return totals;
}

export function compareSnapshots(before: string, after: string): string {
  const a = totalsOf(before);
  const b = totalsOf(after);
  const rows = [...new Set([...a.keys(), ...b.keys()])].map((name) => {
    const x = a.get(name) ?? { count: 0, bytes: 0 };
    const y = b.get(name) ?? { count: 0, bytes: 0 };
    return { name, count: y.count - x.count, bytes: y.bytes - x.bytes, total: y.bytes };
  });
  rows.sort((p, q) => q.bytes - p.bytes);
  const sum = (m: Map<string, Totals>) => [...m.values()].reduce((s, t) => s + t.bytes, 0);
  const lines = [`heap ${(sum(a) / 1048576).toFixed(1)} MB → ${(sum(b) / 1048576).toFixed(1)} MB; grew most:`];
  for (const row of rows.slice(0, 25)) {
    lines.push(
      `  ${(row.bytes / 1024).toFixed(0).padStart(9)} KiB  ${String(row.count).padStart(8)} objects  ${row.name.slice(0, 80)}  (now ${(row.total / 1024).toFixed(0)} KiB)`,
    );
  }
  return `${lines.join('\n')}\n`;
}
