/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and prints where the time went: self time by
 * package / source file, and the top functions by self and by inclusive time.
 *
 *   npx tsx bench/tools/cpu-profile-summary.ts <file.cpuprofile> [--top=25] [--match=substring]
 *
 * --match restricts inclusive-time figures to frames whose function or file contains
 * the substring (e.g. --match=stores to see the stores module's subtree).
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const PROJECT = `${process.cwd()}/`;

/** Package name, node: module or project-relative file of a frame. */
function where(url: string): string {
  if (url === '') return '(native/V8)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const project = url.indexOf(PROJECT);
  return project === -1 ? url : url.slice(project + PROJECT.length);
}

/**
 * Frames without a URL are V8 builtins, native addon calls (better-sqlite3's `all`/`run`,
 * `writev`) and code compiled at run time (`anonymousN`: fast-json-stringify serialisers,
 * ajv validators); they are named rather than lumped together.
 */
function placeOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (url !== '') return where(url);
  if (functionName.startsWith('(')) return functionName;
  if (/^anonymous\d*$/.test(functionName)) return '(generated code: serialisers, validators)';
  return `(native) ${functionName || '(anonymous)'}`;
}

function main(): void {
  const [file, ...options] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpu-profile-summary.ts <file.cpuprofile> [--top=N]');
  const top = Number(options.find((o) => o.startsWith('--top='))?.slice(6) ?? 25);
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // Samples taken while the profiler itself starts and stops (under node:inspector's
  // post) are the measurement's cost, not the app's: a short profile would be mostly that.
  const underInspector = (id: number) => {
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      if (byId.get(cursor)!.callFrame.url === 'node:inspector') return true;
    }
    return false;
  };
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    if (!underInspector(id)) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);
  const label = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

  const selfByPlace = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id)!;
    const place = placeOf(node);
    selfByPlace.set(place, (selfByPlace.get(place) ?? 0) + micros);
    selfByFunction.set(label(node), (selfByFunction.get(label(node)) ?? 0) + micros);
    // Inclusive: credit every distinct frame on the stack once.
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const key = label(byId.get(cursor)!);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + micros);
    }
  }
  const print = (title: string, entries: Map<string, number>, limit: number) => {
    console.log(`\n${title}`);
    for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
      console.log(
        `${(micros / 1000).toFixed(0).padStart(8)} ms ${((100 * micros) / total).toFixed(1).padStart(5)}%  ${name}`,
      );
    }
  };
  console.log(`profile: ${(total / 1000).toFixed(0)} ms sampled`);
  print('self time by package / file', selfByPlace, top);
  print('self time by function', selfByFunction, top);
  const match = options.find((o) => o.startsWith('--match='))?.slice(8);
  const inclusiveShown = match ? new Map([...inclusive].filter(([k]) => k.includes(match))) : inclusive;
  print('inclusive time by function', inclusiveShown, top * 2);
}

main();
