import { defineConfig } from 'vitest/config';

/** `npm run faults`: test/faults only (docs/operations.md "Faults"), one file at a time — they kill and restart processes and clusters. */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
