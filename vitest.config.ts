import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Sockets and child processes in the e2e tests: keep workers bounded on the 2-core machines.
    maxWorkers: 2,
    // Quiet unless a test fails: console output of passing tests is dropped (vitest's own option), stderr written
    // directly (server logs, forwarded child-process output) is held per test by the setup file.
    silent: 'passed-only',
    // The default reporter lists a passing test under its file when it is slower than this. End-to-end tests spawn
    // processes and take seconds by design, so the 300 ms default listed dozens of them on every run.
    slowTestThreshold: 10_000,
    setupFiles: ['test/setup/quietOutput.ts'],
    // Says once why tests skip on this machine (no ../shared, no browser).
    globalSetup: ['test/setup/notes.ts'],
  },
});
