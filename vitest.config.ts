import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Sockets and child processes in the e2e tests: keep workers bounded on the 2-core machines.
    maxWorkers: 2,
  },
});
