import { expectStatus, startBenchApp, tempDir, type BenchApp } from './app.js';
import { profileOnce } from './profile.js';
import { tableDdl } from './raw-sqlite.js';
import { Resources } from './resources.js';
import type { Session } from './scenario.js';
import { timed } from './stats.js';

type Input = Record<string, any>;

/** The Ack message of a bulk import that created or left unchanged every item. */
export const importCounts = (created: number, unchanged: number) => `created ${created}, updated 0, unchanged ${unchanged}, deleted 0`;

/** POST a prepared body through app.inject (no network: the HTTP layer is not what is measured). */
export async function timedImport(bench: BenchApp, path: string, body: string, expected: string): Promise<number> {
  const { ms, result } = await timed(() => bench.inject('POST', path, body));
  expectStatus(result, 200, `POST ${path}`);
  const message = (result.json() as { message: string }).message;
  if (message !== expected) throw new Error(`POST ${path} answered "${message}", expected "${expected}"`);
  return ms;
}

export interface ImportVsRaw {
  /** Temporary directory label. */
  label: string;
  path: string;
  /** The body's array field (`stores`, `products`). */
  bodyKey: string;
  /** Tables whose DDL the raw baseline copies from a migrated database. */
  tables: string[];
  inputs: Input[];
  body: string;
  warmupCount: number;
  /** Result names for --profile: the first import and its identical re-send. */
  importName: string;
  resendName: string;
  /** The raw baseline: converts and inserts `rows` into a fresh file with `ddl`; returns ms. */
  rawImport(dir: string, name: string, ddl: string[], rows: Input[]): number;
}

/**
 * A bulk import against raw prepared inserts of the same rows, with the identical re-send
 * measured right after each first import as a companion result: the session shared by the
 * stores and products import scenarios.
 */
export function prepareImportVsRaw(spec: ImportVsRaw): Promise<Session> {
  return new Resources().preparing(async (resources) => {
    const temp = resources.add(tempDir(spec.label), (t) => t.remove());
    const probe = await startBenchApp(temp.dir, 'ddl');
    const ddl = spec.tables.flatMap((table) => tableDdl(probe.file, table));
    await probe.close();

    /** First import into a fresh database, then the identical re-send into it. */
    const appSide = async (name: string, body: string, count: number, profile: boolean) => {
      const bench = await startBenchApp(temp.dir, name);
      try {
        const first = () => timedImport(bench, spec.path, body, importCounts(count, 0));
        const resend = () => timedImport(bench, spec.path, body, importCounts(0, count));
        const firstMs = profile ? await profileOnce(spec.importName, first) : await first();
        const resendMs = profile ? await profileOnce(spec.resendName, resend) : await resend();
        return { firstMs, resendMs };
      } finally {
        await bench.close();
      }
    };
    const rawSide = (name: string, rows: Input[]) => spec.rawImport(temp.dir, name, ddl, rows);
    // An untimed round on a tenth of the data, so the first measured run does not pay for
    // JIT warm-up (a full-size round would cost as much as a run).
    const warmup = spec.inputs.slice(0, spec.warmupCount);
    rawSide('raw-warmup', warmup);
    await appSide('app-warmup', JSON.stringify({ [spec.bodyKey]: warmup }), spec.warmupCount, false);

    return {
      async measure(run) {
        // Alternate who goes first, so a drift in machine speed favours neither side.
        let baseline = run % 2 === 1 ? rawSide(`raw-${run}`, spec.inputs) : 0;
        const app = await appSide(`app-${run}`, spec.body, spec.inputs.length, true);
        if (run % 2 === 0) baseline = rawSide(`raw-${run}`, spec.inputs);
        return { value: app.firstMs, baseline, companions: { [spec.resendName]: { value: app.resendMs, baseline: app.firstMs } } };
      },
      close: () => resources.release(),
    };
  });
}
