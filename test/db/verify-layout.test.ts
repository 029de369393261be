import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERIFY_CHECKS } from '../../src/verify.js';

const SRC = join(import.meta.dirname, '../../src');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );

/**
 * `store-ops verify` is assembled, not written, in src/verify.ts: each module's checks live
 * in its own verify-checks.ts and import only shared/verify-types.ts, never their caller.
 */
describe('verify: one home per module, no import of the caller', () => {
  it("only the CLI's verify command (src/cli/verify.ts) imports src/verify.ts", () => {
    const importers = files(SRC)
      .filter((file) => /from '(\.\.?\/)+verify\.js'|import\('(\.\.?\/)+verify\.js'\)/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(importers).toEqual(['cli/verify.ts']);
  });

  it('every verify-checks.ts is assembled, and every check has its own name', async () => {
    const modules = files(SRC).filter((file) => file.endsWith('verify-checks.ts'));
    const assembled = new Set(VERIFY_CHECKS);
    for (const file of modules) {
      const exported = Object.values(await import(file))
        .filter(Array.isArray)
        .flat();
      expect(exported.length, relative(SRC, file)).toBeGreaterThan(0);
      for (const check of exported) expect(assembled.has(check), `${relative(SRC, file)}: ${check.name}`).toBe(true);
    }
    const names = VERIFY_CHECKS.map((check) => check.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
