/**
 * The bulk-import scenarios (stores, products): the service started with `npm start` on a
 * fresh file for every run, the body POSTed over HTTP, then POSTed a second time (the
 * identical re-send, a companion result); against the raw writer process inserting the
 * same records into plain tables of a fresh file, with the service's synchronous mode.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PlainTable } from '../baselines/plain-tables.js';
import { timedPost } from './client.js';
import { tempDir } from './processes.js';
import { startRawWriter } from './raw-writer-client.js';
import { Resources } from './resources.js';
import type { Session } from './scenario.js';
import { serviceSynchronous, startService } from './service.js';

type Input = Record<string, unknown>;

/** The Ack message of a bulk import that created or left unchanged every item. */
export const importCounts = (created: number, unchanged: number) =>
  `created ${created}, updated 0, unchanged ${unchanged}, deleted 0`;

export interface ImportVsRaw {
  /** Temporary directory label. */
  label: string;
  path: string;
  /** The body's array field, which is also the entity's plain table (`stores`, `products`). */
  entity: 'stores' | 'products';
  inputs: Input[];
  body: string;
  /** The plain tables the raw writer fills (built from the inputs' fields). */
  tables: PlainTable[];
  warmupCount: number;
  resendName: string;
}

export function prepareImportVsRaw(spec: ImportVsRaw): Promise<Session> {
  return new Resources().preparing(async (resources) => {
    const temp = resources.add(tempDir(spec.label), (t) => t.remove());
    const raw = resources.add(startRawWriter(), (r) => r.stop());
    const synchronous = serviceSynchronous();
    const warmupInputs = spec.inputs.slice(0, spec.warmupCount);
    const warmupBody = JSON.stringify({ [spec.entity]: warmupInputs });
    const bodyFile = path.join(temp.dir, 'body.json');
    const warmupBodyFile = path.join(temp.dir, 'warmup-body.json');
    fs.writeFileSync(bodyFile, spec.body);
    fs.writeFileSync(warmupBodyFile, warmupBody);

    /** A fresh service: the first import, then the identical re-send; the service stopped and its file removed. */
    const serviceSide = async (name: string, body: string, count: number) => {
      const service = await startService(temp.dir, name);
      try {
        const firstMs = await timedPost(service.baseUrl, spec.path, body, importCounts(count, 0));
        const resendMs = await timedPost(service.baseUrl, spec.path, body, importCounts(0, count));
        return { firstMs, resendMs, peakRssMb: service.peakRssMb() };
      } finally {
        await service.stop();
        for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${service.file}${suffix}`, { force: true });
      }
    };
    const rawSide = async (name: string, file: string) => {
      await raw.open({ op: 'open', file: path.join(temp.dir, `${name}.sqlite`), synchronous, tables: spec.tables });
      return raw.timed({ op: 'import', entity: spec.entity, bodyFile: file });
    };
    // An untimed round on a tenth of the data, so the first measured run does not pay for
    // the raw writer's JIT warm-up; each service run is a fresh process anyway, as a user's is.
    await rawSide('raw-warmup', warmupBodyFile);
    await serviceSide('service-warmup', warmupBody, warmupInputs.length);

    return {
      async measure(run) {
        // Alternate who goes first, so a drift in machine speed favours neither side.
        let baseline = run % 2 === 1 ? await rawSide(`raw-${run}`, bodyFile) : 0;
        const service = await serviceSide(`service-${run}`, spec.body, spec.inputs.length);
        if (run % 2 === 0) baseline = await rawSide(`raw-${run}`, bodyFile);
        const perSecond = (ms: number) => (spec.inputs.length * 1000) / ms;
        return {
          value: service.firstMs,
          baseline,
          extra: {
            [`service ${spec.entity}/s`]: perSecond(service.firstMs),
            [`raw ${spec.entity}/s`]: perSecond(baseline),
            'service peak RSS MB': service.peakRssMb,
          },
          companions: { [spec.resendName]: { value: service.resendMs, baseline: service.firstMs } },
        };
      },
      close: () => resources.release(),
    };
  });
}
