import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.js';
import { captureSql, FLOWS, sqlFilePath, sqlFileText, type Flow } from './capture.js';

// The checked-in SQL of the hot and tricky flows (sql/<dialect>/*.sql) is what the code sends:
// a query changed without `npm run sql` fails here, so the change shows in review.

const ROOT = path.resolve(import.meta.dirname, '../..');

for (const dialect of DIALECTS) {
  describe(`checked-in SQL (${dialect.name})`, () => {
    it('every flow sends exactly the statements of its file (run `npm run sql` after changing a query)', async () => {
      const captured = await captureSql(dialect);
      for (const flow of Object.keys(FLOWS) as Flow[]) {
        const file = sqlFilePath(ROOT, dialect.name, flow);
        expect(fs.existsSync(file), `${path.relative(ROOT, file)} is missing: run npm run sql`).toBe(true);
        expect(
          sqlFileText(dialect.name, flow, captured.get(flow)!),
          `${path.relative(ROOT, file)} differs from what the code sends: run npm run sql`,
        ).toBe(fs.readFileSync(file, 'utf8'));
        expect(captured.get(flow)!.length, `${flow} sends no SQL`).toBeGreaterThan(0);
      }
      const files = fs.readdirSync(path.join(ROOT, 'sql', dialect.name)).sort();
      expect(files).toEqual(
        Object.keys(FLOWS)
          .map((flow) => `${flow}.sql`)
          .sort(),
      );
    });
  });
}
