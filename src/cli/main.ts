#!/usr/bin/env node
// Placeholder entry point; the CLI lands with the runtime.
console.error('switchboard: not yet built');
process.exitCode = 1;
