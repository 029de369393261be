import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Native drivers (better-sqlite3, pg) are happiest in child processes.
    pool: 'forks',
    // Two files at a time, whatever the core count (vitest's default is cores − 1: one on CI's
    // two cores). Most files wait on PostgreSQL, child processes or Chromium, not on the CPU.
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
