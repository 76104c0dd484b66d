// The product's version, read from package.json so that `switchboard --version`, the MCP server's serverInfo and
// `GET /` report the same number and a release changes it in one place. The file sits two folders up both from
// src/runtime (tsx) and from dist/runtime (the built package), and is always shipped with the package.

import { readFileSync } from 'node:fs';

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  if (typeof manifest.version !== 'string' || manifest.version === '') {
    throw new Error('package.json has no "version": it is where Switchboard reads its own version from.');
  }
  return manifest.version;
}

export const VERSION = packageVersion();
