import fs from 'node:fs';
import path from 'node:path';
import { testDialects } from '../helpers/dialects.js';
import { captureSql, sqlFilePath, sqlFileText } from './capture.js';

// `npm run sql`: writes sql/<dialect>/<flow>.sql from what the code sends now — SQLite always,
// PostgreSQL when TEST_DATABASE_URL names a server (as for `npm test`). Commit the files with
// the change that moved them.

const ROOT = path.resolve(import.meta.dirname, '../..');

for (const dialect of testDialects()) {
  const captured = await captureSql(dialect);
  const folder = path.join(ROOT, 'sql', dialect.name);
  fs.rmSync(folder, { recursive: true, force: true });
  fs.mkdirSync(folder, { recursive: true });
  for (const [flow, statements] of captured)
    fs.writeFileSync(sqlFilePath(ROOT, dialect.name, flow), sqlFileText(dialect.name, flow, statements));
  console.log(`sql/${dialect.name}: ${[...captured].map(([flow, s]) => `${flow} ${s.length}`).join(', ')}`);
}
if (!process.env.TEST_DATABASE_URL)
  console.log('PostgreSQL not written: set TEST_DATABASE_URL to a server (see README) to write sql/postgres too.');
