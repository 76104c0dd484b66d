// Where the server gets the sandbox console's page: the files `npm run build` wrote into dist/cli/console/ when
// the program runs from its bundle, else (run from source: tsx, tests) a bundle made now with the same function
// the build uses (build.ts), once per process.

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface ConsolePage {
  html: string;
  js: string;
  css: string;
}

/** The names the build writes in dist/cli/console/ (build.ts) and the server reads back here. */
export const CONSOLE_FILES = { html: 'index.html', js: 'app.js', css: 'app.css' } as const;

let loading: Promise<ConsolePage> | undefined;

export function consoleAssets(): Promise<ConsolePage> {
  if (!loading) {
    loading = loadAssets();
    // A failed load is not kept: the next request tries again (and reports the error again) rather than
    // serving a remembered failure for the life of the process.
    loading.catch(() => {
      loading = undefined;
    });
  }
  return loading;
}

async function loadAssets(): Promise<ConsolePage> {
  // Bundled, this module is part of dist/cli/main.js or a chunk beside it, so ./console/ is dist/cli/console/.
  // From source it is src/console/web/console/, which does not exist: then the page is built here.
  const folder = new URL('./console/', import.meta.url);
  const read = (name: string) => readFile(new URL(name, folder), 'utf8');
  try {
    const [html, js, css] = await Promise.all([
      read(CONSOLE_FILES.html),
      read(CONSOLE_FILES.js),
      read(CONSOLE_FILES.css),
    ]);
    return { html, js, css };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // A specifier esbuild cannot follow, so the bundled program carries neither the page builder nor esbuild
  // (a devDependency, absent from an installed package, whose console is always prebuilt). Nothing else may
  // import build.ts statically for the same reason.
  const builder = './build.js';
  let page: typeof import('./build.js');
  try {
    page = (await import(/* @vite-ignore */ builder)) as typeof import('./build.js');
  } catch (error) {
    throw new Error(
      `The sandbox console's page is missing from ${fileURLToPath(folder)} and cannot be built here ` +
        `(${(error as Error).message}). Run \`npm run build\` to write it.`,
    );
  }
  return page.buildConsolePage();
}
