// Printed once per `vitest run`, before the tests: why some tests will be skipped on this machine.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The shared folder beside the repository (../shared), as the inventory tests find it (test/inventory/specTable.ts). */
export const SHARED_DIR = fileURLToPath(new URL('../../../shared/', import.meta.url));

/** The files of ../shared some tests compare the code with; each test runs only when its file is there. */
export const SHARED_FILES = [
  'spec/issuedesk.md',
  'spec/messaging-track.md',
  'spec/store.md',
  'reference/openapi/messaging-track-upstream.openapi.json',
] as const;

const CHROMIUM = '/usr/bin/chromium';

/** The notes for the files missing under `sharedDir` and a missing browser; empty when nothing is skipped. */
export function skipNotes(sharedDir = SHARED_DIR, chromium = CHROMIUM): string[] {
  const notes: string[] = [];
  const missing = SHARED_FILES.filter((file) => !existsSync(`${sharedDir}${file}`));
  if (missing.length > 0) {
    notes.push(
      `Skipping the tests that check the code against the spec and upstream documents: ${missing.join(', ')} ` +
        `not found in ${sharedDir}. They run when that folder sits beside the repository.`,
    );
  }
  if (!existsSync(chromium)) {
    notes.push(
      `Skipping the tests in a real browser: ${chromium} is missing. Install Debian's chromium to run them: apt-get install -y chromium`,
    );
  }
  return notes;
}

export default function setup(): void {
  for (const note of skipNotes()) process.stdout.write(`${note}\n`);
}
